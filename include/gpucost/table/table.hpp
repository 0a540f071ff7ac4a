#pragma once
/// \file table.hpp
/// Table: equally long columns with a shared `ts_ns` timestamp column.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/table/column.hpp"

namespace gpucost {

/// A set of equally long columns; column 0 is always `ts_ns` (int64 UTC nanoseconds, null until
/// the align stage has placed the row).
class Table {
 public:
  explicit Table(std::string name = {});
  Table(const Table&) = default;
  Table& operator=(const Table&) = default;
  /// A moved-from table is empty, with the same columns.
  Table(Table&& other);
  Table& operator=(Table&& other);

  const std::string& name() const noexcept { return name_; }
  /// Adds a column and returns its index.
  std::size_t add_column(std::string name, ColumnType type, std::string unit = {});
  std::size_t column_count() const noexcept { return columns_.size(); }
  Column& column(std::size_t i) noexcept { return columns_[i]; }
  const Column& column(std::size_t i) const noexcept { return columns_[i]; }
  /// Index of a column by name, or npos.
  std::size_t find(std::string_view name) const noexcept;
  /// The timestamp column (index 0).
  Column& ts() noexcept { return columns_[0]; }
  const Column& ts() const noexcept { return columns_[0]; }
  /// Number of rows (all columns agree once a row is complete).
  std::size_t rows() const noexcept { return columns_[0].size(); }
  /// True when every column has the same length.
  bool consistent() const noexcept;

  /// Appends all rows of a table with the same schema.
  void append(const Table& other);
  /// Appends all rows of a table with the same schema, taking its storage when this table is
  /// empty (no copy); `other` is left empty.
  void append(Table&& other);
  /// Keeps rows in the given order (see Column::permute).
  void permute(std::span<const std::uint32_t> order);
  void reserve(std::size_t rows);
  /// Gives back the memory of capacity not used yet, once a table stops growing (Column::trim).
  void trim() noexcept {
    for (auto& c : columns_) c.trim();
  }
  void clear();
  /// Bytes held by the columns' values (not dictionaries).
  std::size_t memory_bytes() const noexcept;

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  // Empty columns with the names, types and units of these.
  std::vector<Column> empty_schema() const;
  std::string name_;
  std::vector<Column> columns_;
};

}  // namespace gpucost
