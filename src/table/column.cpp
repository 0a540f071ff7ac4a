#include "gpucost/table/column.hpp"

#include <algorithm>
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

Column::Column(std::string name, ColumnType type, std::string unit)
    : name_(std::move(name)), type_(type), unit_(std::move(unit)) {
  if (type_ == ColumnType::kDict) dict_ = std::make_shared<StringDictionary>();
}

void Column::push_null() {
  switch (type_) {
    case ColumnType::kFloat64: floats_.push_any(); break;
    case ColumnType::kText: ints_.push(static_cast<std::int64_t>(arena_.size())); break;
    default: ints_.push_any(); break;  // reads as 0 through get_int(), which checks validity
  }
  valid_.push(false);
}

void Column::push_string(std::string_view v) {
  if (type_ == ColumnType::kDict) {
    ints_.push(dict_->intern(v));
  } else {
    arena_.append(v);
    ints_.push(static_cast<std::int64_t>(arena_.size()));
  }
  valid_.push(true);
}

std::string_view Column::get_string(std::size_t row) const noexcept {
  if (type_ == ColumnType::kDict) return dict_->at(get_code(row));
  const std::size_t begin = row == 0 ? 0 : static_cast<std::size_t>(ints_.get(row - 1));
  const std::size_t end = static_cast<std::size_t>(ints_.get(row));
  return std::string_view(arena_).substr(begin, end - begin);
}

void Column::push_from(const Column& other, std::size_t row) {
  if (!other.is_valid(row)) {
    push_null();
    return;
  }
  switch (type_) {
    case ColumnType::kInt64:
    case ColumnType::kBool: push_int(other.ints_.get(row)); break;  // valid: checked above
    case ColumnType::kFloat64: push_float(other.floats_.get(row)); break;
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
      ints_.append(other.ints_, &other.valid_);
      break;
    case ColumnType::kFloat64:
      floats_.append(other.floats_, &other.valid_);
      break;
    case ColumnType::kDict: {
      std::vector<std::uint32_t> map(other.dict_->size());
      for (std::uint32_t c = 0; c < map.size(); ++c) map[c] = dict_->intern(other.dict_->at(c));
      ints_.reserve(ints_.size() + n);
      for (std::size_t r = 0; r < n; ++r) {
        if (other.valid_.get(r)) ints_.push(map[static_cast<std::size_t>(other.ints_.get(r))]);
        else ints_.push_any();
      }
      break;
    }
    case ColumnType::kText: {
      const auto base = static_cast<std::int64_t>(arena_.size());
      arena_.append(other.arena_);
      ints_.reserve(ints_.size() + n);
      for (std::size_t r = 0; r < n; ++r) ints_.push(other.ints_.get(r) + base);
      break;
    }
  }
  valid_.append(other.valid_);
}

void Column::append_ints(const std::int64_t* v, const bool* valid, std::size_t n) {
  ints_.append_values(v, valid, n);
  valid_.append_flags(valid, n);
}

void Column::append_floats(const double* v, std::size_t n) {
  constexpr std::size_t kChunk = 256;
  bool valid[kChunk];
  for (std::size_t at = 0; at < n; at += kChunk) {
    const std::size_t m = std::min(kChunk, n - at);
    bool all = true;
    for (std::size_t i = 0; i < m; ++i) {
      valid[i] = v[at + i] == v[at + i];  // NaN means null
      all = all && valid[i];
    }
    floats_.append_values(v + at, all ? nullptr : valid, m);
    valid_.append_flags(all ? nullptr : valid, m);
  }
}

void Column::append_codes(const std::uint32_t* codes, const bool* valid, std::size_t n) {
  constexpr std::size_t kChunk = 256;
  std::int64_t v[kChunk];
  for (std::size_t at = 0; at < n; at += kChunk) {
    const std::size_t m = std::min(kChunk, n - at);
    for (std::size_t i = 0; i < m; ++i) v[i] = codes[at + i];
    ints_.append_values(v, valid ? valid + at : nullptr, m);
    valid_.append_flags(valid ? valid + at : nullptr, m);
  }
}

void Column::append_nulls(std::size_t n) {
  switch (type_) {
    case ColumnType::kFloat64: floats_.push_any(n); break;
    case ColumnType::kText:
      for (std::size_t i = 0; i < n; ++i) ints_.push(static_cast<std::int64_t>(arena_.size()));
      break;
    default: ints_.push_any(n); break;
  }
  valid_.append_same(false, n);
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
  for (auto r : order) v.push(valid_.get(r));
  if (type_ == ColumnType::kFloat64) {
    floats_.permute(order);
  } else if (type_ == ColumnType::kText) {
    std::string arena;
    PackedInts ends;
    for (auto r : order) {
      arena.append(get_string(r));
      ends.push(static_cast<std::int64_t>(arena.size()));
    }
    arena_ = std::move(arena);
    ints_ = std::move(ends);
  } else {
    ints_.permute(order);
  }
  valid_ = std::move(v);
}

}  // namespace gpucost
