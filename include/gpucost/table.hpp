#pragma once
/// \file table.hpp
/// Columnar buffers that join the stages: a Table is a shared int64 nanosecond timestamp column
/// plus typed, nullable columns. Strings that repeat (GPU ids, process names, idents) are
/// dictionary-coded; free text lives in one arena per column. Modelled on DuckDB's DataChunk:
/// columns are contiguous arrays with a validity mask, appended to without per-row allocation.

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpucost {

/// The value type of a column.
enum class ColumnType : std::uint8_t {
  kInt64,    ///< int64 (timestamps, counts, ids)
  kFloat64,  ///< double (measurements)
  kBool,     ///< stored as one byte
  kDict,     ///< strings that repeat, interned: a uint32 code per row
  kText,     ///< free text: offsets into a per-column arena
};

/// Name of a column type, for schemas and errors.
std::string_view column_type_name(ColumnType t) noexcept;

/// Interns strings: the same text always gets the same code; codes are dense from 0.
class StringDictionary {
 public:
  /// The code of s, adding it when new.
  std::uint32_t intern(std::string_view s);
  /// The string of a code (code < size()).
  std::string_view at(std::uint32_t code) const noexcept { return strings_[code]; }
  /// Number of distinct strings.
  std::size_t size() const noexcept { return strings_.size(); }

 private:
  std::deque<std::string> strings_;  // deque: views into it stay valid as it grows
  std::unordered_map<std::string_view, std::uint32_t> index_;
};

/// Validity bits: bit i set when row i holds a value.
class Validity {
 public:
  void push(bool valid) {
    if ((size_ & 63) == 0) words_.push_back(0);
    if (valid) words_.back() |= std::uint64_t{1} << (size_ & 63);
    ++size_;
  }
  bool get(std::size_t i) const noexcept { return (words_[i >> 6] >> (i & 63)) & 1; }
  void set(std::size_t i, bool valid) noexcept {
    const std::uint64_t bit = std::uint64_t{1} << (i & 63);
    if (valid) words_[i >> 6] |= bit; else words_[i >> 6] &= ~bit;
  }
  std::size_t size() const noexcept { return size_; }
  /// Appends all bits of another mask.
  void append(const Validity& other) {
    if ((size_ & 63) == 0) {  // word-aligned: copy whole words
      words_.insert(words_.end(), other.words_.begin(), other.words_.end());
      size_ += other.size_;
      return;
    }
    for (std::size_t i = 0; i < other.size_; ++i) push(other.get(i));
  }
  void reserve(std::size_t n) { words_.reserve((n + 63) / 64); }
  void clear() noexcept { words_.clear(); size_ = 0; }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t size_ = 0;
};

/// One typed, nullable column. Appends never allocate per row beyond amortized vector growth.
class Column {
 public:
  Column(std::string name, ColumnType type, std::string unit = {});

  const std::string& name() const noexcept { return name_; }
  ColumnType type() const noexcept { return type_; }
  /// The unit of the values (`W`, `%`, `ns`), empty when none.
  const std::string& unit() const noexcept { return unit_; }
  std::size_t size() const noexcept { return valid_.size(); }
  bool is_valid(std::size_t row) const noexcept { return valid_.get(row); }

  void push_null();
  void push_int(std::int64_t v) { ints_.push_back(v); valid_.push(true); }
  void push_float(double v) { floats_.push_back(v); valid_.push(true); }
  void push_bool(bool v) { ints_.push_back(v ? 1 : 0); valid_.push(true); }
  /// Appends a string: interned for kDict, copied into the arena for kText.
  void push_string(std::string_view v);
  /// Appends an int64 that may be null (INT64_MIN means null, as kNoTime does).
  void push_int_or_null(std::int64_t v);
  /// Appends a float that may be null (NaN means null).
  void push_float_or_null(double v);
  /// Appends row `row` of `other` (same type); strings are re-interned.
  void push_from(const Column& other, std::size_t row);
  /// Appends every row of `other` (same type) in bulk; dictionary codes are translated once per
  /// distinct string, not per row.
  void append_column(const Column& other);

  std::int64_t get_int(std::size_t row) const noexcept { return ints_[row]; }
  double get_float(std::size_t row) const noexcept { return floats_[row]; }
  bool get_bool(std::size_t row) const noexcept { return ints_[row] != 0; }
  std::string_view get_string(std::size_t row) const noexcept;
  /// The dictionary code of a kDict row.
  std::uint32_t get_code(std::size_t row) const noexcept { return static_cast<std::uint32_t>(ints_[row]); }
  const StringDictionary& dictionary() const noexcept { return *dict_; }

  /// Overwrites a value in place (align fills ts_ns this way).
  void set_int(std::size_t row, std::int64_t v) noexcept { ints_[row] = v; valid_.set(row, true); }
  void set_float(std::size_t row, double v) noexcept { floats_[row] = v; valid_.set(row, true); }
  void set_null(std::size_t row) noexcept { valid_.set(row, false); }

  /// Raw storage of kInt64/kBool/kDict columns (codes for kDict); nulls hold unspecified values.
  std::span<const std::int64_t> ints() const noexcept { return ints_; }
  /// Raw storage of kFloat64 columns; nulls hold unspecified values.
  std::span<const double> floats() const noexcept { return floats_; }

  void reserve(std::size_t rows);
  void clear();
  /// Keeps rows in the given order (indices into the current rows; may drop rows).
  void permute(std::span<const std::uint32_t> order);

 private:
  std::string name_;
  ColumnType type_;
  std::string unit_;
  Validity valid_;
  std::vector<std::int64_t> ints_;     // kInt64, kBool, kDict (code), kText (offset of end)
  std::vector<double> floats_;         // kFloat64
  std::string arena_;                  // kText bytes
  std::shared_ptr<StringDictionary> dict_;  // kDict
};

/// A set of equally long columns; column 0 is always `ts_ns` (int64 UTC nanoseconds, null until
/// the align stage has placed the row).
class Table {
 public:
  explicit Table(std::string name = {});

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
  /// Keeps rows in the given order (see Column::permute).
  void permute(std::span<const std::uint32_t> order);
  void reserve(std::size_t rows);
  void clear();

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  std::string name_;
  std::vector<Column> columns_;
};

}  // namespace gpucost
