#include "gpucost/table/table.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpucost {

Table::Table(std::string name) : name_(std::move(name)) {
  columns_.emplace_back("ts_ns", ColumnType::kInt64, "ns");
}

Table::Table(Table&& other) : name_(other.name_), columns_(std::move(other.columns_)) {
  other.columns_ = empty_schema();
}

Table& Table::operator=(Table&& other) {
  if (this != &other) {
    name_ = other.name_;
    columns_ = std::move(other.columns_);
    other.columns_ = empty_schema();
  }
  return *this;
}

std::vector<Column> Table::empty_schema() const {
  std::vector<Column> cols;
  cols.reserve(columns_.size());
  for (const auto& c : columns_) cols.emplace_back(c.name(), c.type(), c.unit());
  return cols;
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

void Table::append(Table&& other) {
  if (rows() == 0 && other.columns_.size() == columns_.size()) {
    bool same = true;
    for (std::size_t c = 0; c < columns_.size() && same; ++c) same = columns_[c].type() == other.columns_[c].type();
    if (same) {
      columns_ = std::move(other.columns_);
      other.columns_ = empty_schema();
      return;
    }
  }
  append(static_cast<const Table&>(other));
  other.clear();
}

std::size_t Table::memory_bytes() const noexcept {
  std::size_t n = 0;
  for (const auto& c : columns_) n += c.memory_bytes();
  return n;
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
