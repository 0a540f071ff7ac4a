#pragma once
/// \file column.hpp
/// Column, one typed nullable column, and ColumnReader, its values for tight read loops.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/table/dictionary.hpp"
#include "gpucost/table/packed_floats.hpp"
#include "gpucost/table/packed_ints.hpp"
#include "gpucost/table/validity.hpp"

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

/// One typed, nullable column. Appends never allocate per row beyond amortized growth; values are
/// stored packed (see PackedInts, PackedFloats) and read back exactly as they were appended.
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
  void push_int(std::int64_t v) { ints_.push(v); valid_.push(true); }
  void push_float(double v) { floats_.push(v); valid_.push(true); }
  void push_bool(bool v) { ints_.push(v ? 1 : 0); valid_.push(true); }
  /// Appends a string: interned for kDict, copied into the arena for kText.
  void push_string(std::string_view v);
  /// Appends an int64 that may be null (INT64_MIN means null, as kNoTime does).
  void push_int_or_null(std::int64_t v) {
    if (v == INT64_MIN) push_null(); else push_int(v);
  }
  /// Appends a float that may be null (NaN means null).
  void push_float_or_null(double v) {
    if (v != v) push_null(); else push_float(v);
  }
  /// Appends row `row` of `other` (same type); strings are re-interned.
  void push_from(const Column& other, std::size_t row);
  /// Appends every row of `other` (same type) in bulk; dictionary codes are translated once per
  /// distinct string, not per row.
  void append_column(const Column& other);
  /// Appends n rows at once (a parser's batch of rows): far cheaper per value than n pushes.
  /// kInt64/kBool: values, and whether each row holds one (valid == nullptr: all do).
  void append_ints(const std::int64_t* v, const bool* valid, std::size_t n);
  /// kFloat64: NaN means null.
  void append_floats(const double* v, std::size_t n);
  /// kDict: codes from intern() (or null where valid[i] is false).
  void append_codes(const std::uint32_t* codes, const bool* valid, std::size_t n);
  /// n null rows.
  void append_nulls(std::size_t n);
  /// kDict: the code of s in this column's dictionary (for append_codes).
  std::uint32_t intern(std::string_view s) { return dict_->intern(s); }

  /// The value of a row; a null row reads 0.
  std::int64_t get_int(std::size_t row) const noexcept { return valid_.get(row) ? ints_.get(row) : 0; }
  double get_float(std::size_t row) const noexcept { return valid_.get(row) ? floats_.get(row) : 0.0; }
  bool get_bool(std::size_t row) const noexcept { return get_int(row) != 0; }
  std::string_view get_string(std::size_t row) const noexcept;
  /// The dictionary code of a kDict row (0 for a null row).
  std::uint32_t get_code(std::size_t row) const noexcept { return static_cast<std::uint32_t>(get_int(row)); }
  const StringDictionary& dictionary() const noexcept { return *dict_; }

  /// Overwrites a value in place (align fills ts_ns this way).
  void set_int(std::size_t row, std::int64_t v) { ints_.set(row, v); valid_.set(row, true); }
  void set_float(std::size_t row, double v) { floats_.set(row, v); valid_.set(row, true); }
  void set_null(std::size_t row) { valid_.set(row, false); }

  void reserve(std::size_t rows);
  /// Gives back the memory of capacity not used yet (PackedInts::trim); values stay.
  void trim() noexcept { type_ == ColumnType::kFloat64 ? floats_.trim() : ints_.trim(); }
  void clear();
  /// Keeps rows in the given order (indices into the current rows; may drop rows).
  void permute(std::span<const std::uint32_t> order);
  /// Bytes in use by the values, validity and text (not the dictionary).
  std::size_t memory_bytes() const noexcept {
    return valid_.memory_bytes() + ints_.memory_bytes() + floats_.memory_bytes() + arena_.size();
  }

 private:
  friend class ColumnReader;
  std::string name_;
  ColumnType type_;
  std::string unit_;
  Validity valid_;
  PackedInts ints_;                    // kInt64, kBool, kDict (code), kText (offset of end)
  PackedFloats floats_;                // kFloat64
  std::string arena_;                  // kText bytes
  std::shared_ptr<StringDictionary> dict_;  // kDict
};

/// A column's values for tight read loops, with Column's is_valid/get_int/get_float: the
/// encoding is copied into the reader, so that a loop keeps it in registers instead of going
/// back to the column for every row. Valid while the column is not modified.
class ColumnReader {
 public:
  explicit ColumnReader(const Column& c) noexcept
      : words_(c.valid_.words_.empty() ? nullptr : c.valid_.words_.data()), uniform_(c.valid_.uniform_),
        doubles_(c.floats_.raw_ ? c.floats_.raw_values_.data() : nullptr) {
    const PackedInts& p = c.type_ == ColumnType::kFloat64 ? c.floats_.ints_ : c.ints_;
    data_ = p.data_;
    width_ = p.width_;
    mask_ = p.low_mask_;
    base_ = p.base_;
    scale_ = p.scale_;
    decimals_ = c.floats_.decimals_;
    pow10_ = PackedFloats::kPow10[decimals_];
  }
  bool is_valid(std::size_t row) const noexcept {
    return words_ ? ((words_[row >> 6] >> (row & 63)) & 1) != 0 : uniform_;
  }
  std::int64_t get_int(std::size_t row) const noexcept { return is_valid(row) ? raw_int(row) : 0; }
  double get_float(std::size_t row) const noexcept { return is_valid(row) ? raw_float(row) : 0.0; }
  /// True when no row holds a value (every row is null).
  bool none_valid() const noexcept { return !words_ && !uniform_; }

 private:
  std::int64_t raw_int(std::size_t row) const noexcept {
    if (width_ - 1u < 4u) {
      std::uint32_t v;
      std::memcpy(&v, data_ + width_ * row, 4);
      return base_ + scale_ * static_cast<std::int64_t>(v & mask_);
    }
    if (width_ == 0) return base_;
    std::int64_t v;
    std::memcpy(&v, data_ + 8 * row, 8);
    return v;
  }
  double raw_float(std::size_t row) const noexcept {
    if (doubles_) return doubles_[row];
    const std::int64_t q = raw_int(row);
    return decimals_ == 0 ? static_cast<double>(q) : static_cast<double>(q) / pow10_;
  }
  const std::uint64_t* words_;
  bool uniform_;
  const double* doubles_;
  const unsigned char* data_ = nullptr;
  unsigned width_ = 0, decimals_ = 0;
  std::uint32_t mask_ = 0;
  std::int64_t base_ = 0, scale_ = 1;
  double pow10_ = 1;
};

}  // namespace gpucost
