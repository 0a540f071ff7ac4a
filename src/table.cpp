#include "gpucost/table.hpp"

#include <cmath>
#include <stdexcept>

namespace gpucost {

std::string_view column_type_name(ColumnType t) noexcept {
  switch (t) {
    case ColumnType::kInt64: return "int64";
    case ColumnType::kFloat64: return "float64";
    case ColumnType::kBool: return "bool";
    case ColumnType::kDict: return "dict";
    case ColumnType::kText: return "text";
  }
  return "?";
}

std::uint32_t StringDictionary::intern(std::string_view s) {
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  const auto code = static_cast<std::uint32_t>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(strings_.back(), code);
  return code;
}

Column::Column(std::string name, ColumnType type, std::string unit)
    : name_(std::move(name)), type_(type), unit_(std::move(unit)) {
  if (type_ == ColumnType::kDict) dict_ = std::make_shared<StringDictionary>();
}

void Column::push_null() {
  switch (type_) {
    case ColumnType::kFloat64: floats_.push_back(0.0); break;
    case ColumnType::kText: ints_.push_back(static_cast<std::int64_t>(arena_.size())); break;
    default: ints_.push_back(0); break;
  }
  valid_.push(false);
}

void Column::push_string(std::string_view v) {
  if (type_ == ColumnType::kDict) {
    ints_.push_back(dict_->intern(v));
  } else {
    arena_.append(v);
    ints_.push_back(static_cast<std::int64_t>(arena_.size()));
  }
  valid_.push(true);
}

void Column::push_int_or_null(std::int64_t v) {
  if (v == INT64_MIN) push_null(); else push_int(v);
}

void Column::push_float_or_null(double v) {
  if (std::isnan(v)) push_null(); else push_float(v);
}

std::string_view Column::get_string(std::size_t row) const noexcept {
  if (type_ == ColumnType::kDict) return dict_->at(static_cast<std::uint32_t>(ints_[row]));
  const std::size_t begin = row == 0 ? 0 : static_cast<std::size_t>(ints_[row - 1]);
  const std::size_t end = static_cast<std::size_t>(ints_[row]);
  return std::string_view(arena_).substr(begin, end - begin);
}

void Column::push_from(const Column& other, std::size_t row) {
  if (!other.is_valid(row)) {
    push_null();
    return;
  }
  switch (type_) {
    case ColumnType::kInt64:
    case ColumnType::kBool: push_int(other.ints_[row]); break;
    case ColumnType::kFloat64: push_float(other.floats_[row]); break;
    case ColumnType::kDict:
    case ColumnType::kText: push_string(other.get_string(row)); break;
  }
}

void Column::append_column(const Column& other) {
  if (other.type_ != type_) throw std::logic_error("Column::append_column: types differ");
  const std::size_t n = other.size();
  switch (type_) {
    case ColumnType::kInt64:
    case ColumnType::kBool:
      ints_.insert(ints_.end(), other.ints_.begin(), other.ints_.end());
      break;
    case ColumnType::kFloat64:
      floats_.insert(floats_.end(), other.floats_.begin(), other.floats_.end());
      break;
    case ColumnType::kDict: {
      std::vector<std::uint32_t> map(other.dict_->size());
      for (std::uint32_t c = 0; c < map.size(); ++c) map[c] = dict_->intern(other.dict_->at(c));
      ints_.reserve(ints_.size() + n);
      for (std::size_t r = 0; r < n; ++r)
        ints_.push_back(other.valid_.get(r) ? map[static_cast<std::size_t>(other.ints_[r])] : 0);
      break;
    }
    case ColumnType::kText: {
      const auto base = static_cast<std::int64_t>(arena_.size());
      arena_.append(other.arena_);
      ints_.reserve(ints_.size() + n);
      for (std::size_t r = 0; r < n; ++r) ints_.push_back(other.ints_[r] + base);
      break;
    }
  }
  valid_.append(other.valid_);
}

void Column::reserve(std::size_t rows) {
  valid_.reserve(rows);
  if (type_ == ColumnType::kFloat64) floats_.reserve(rows); else ints_.reserve(rows);
}

void Column::clear() {
  valid_.clear();
  ints_.clear();
  floats_.clear();
  arena_.clear();
  if (dict_) dict_ = std::make_shared<StringDictionary>();
}

void Column::permute(std::span<const std::uint32_t> order) {
  Validity v;
  v.reserve(order.size());
  for (auto r : order) v.push(valid_.get(r));
  if (type_ == ColumnType::kFloat64) {
    std::vector<double> f;
    f.reserve(order.size());
    for (auto r : order) f.push_back(floats_[r]);
    floats_ = std::move(f);
  } else if (type_ == ColumnType::kText) {
    std::string arena;
    std::vector<std::int64_t> ends;
    ends.reserve(order.size());
    for (auto r : order) {
      arena.append(get_string(r));
      ends.push_back(static_cast<std::int64_t>(arena.size()));
    }
    arena_ = std::move(arena);
    ints_ = std::move(ends);
  } else {
    std::vector<std::int64_t> i;
    i.reserve(order.size());
    for (auto r : order) i.push_back(ints_[r]);
    ints_ = std::move(i);
  }
  valid_ = std::move(v);
}

Table::Table(std::string name) : name_(std::move(name)) {
  columns_.emplace_back("ts_ns", ColumnType::kInt64, "ns");
}

std::size_t Table::add_column(std::string name, ColumnType type, std::string unit) {
  if (rows() != 0) throw std::logic_error("Table::add_column on a non-empty table");
  columns_.emplace_back(std::move(name), type, std::move(unit));
  return columns_.size() - 1;
}

std::size_t Table::find(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i].name() == name) return i;
  return npos;
}

bool Table::consistent() const noexcept {
  for (const auto& c : columns_)
    if (c.size() != columns_[0].size()) return false;
  return true;
}

void Table::append(const Table& other) {
  if (other.columns_.size() != columns_.size())
    throw std::logic_error("Table::append: schemas differ");
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c].type() != other.columns_[c].type()) throw std::logic_error("Table::append: schemas differ");
    columns_[c].append_column(other.columns_[c]);
  }
}

void Table::permute(std::span<const std::uint32_t> order) {
  for (auto& c : columns_) c.permute(order);
}

void Table::reserve(std::size_t rows) {
  for (auto& c : columns_) c.reserve(rows);
}

void Table::clear() {
  for (auto& c : columns_) c.clear();
}

}  // namespace gpucost
