#pragma once
/// \file table.hpp
/// Columnar buffers that join the stages: a Table is a shared int64 nanosecond timestamp column
/// plus typed, nullable columns. Strings that repeat (GPU ids, process names, idents) are
/// dictionary-coded; free text lives in one arena per column. Modelled on DuckDB's DataChunk:
/// columns are contiguous arrays with a validity mask, appended to without per-row allocation.

#include <bit>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>  // not used here any more; kept for includers that relied on it
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
  std::string_view at(std::uint32_t code) const noexcept { return views_[code]; }
  /// Number of distinct strings.
  std::size_t size() const noexcept { return views_.size(); }

 private:
  static std::uint64_t hash(std::string_view s) noexcept;
  void rehash(std::size_t slots);
  std::deque<std::string> strings_;      // deque: the views stay valid as it grows
  std::vector<std::string_view> views_;  // by code
  std::vector<std::uint64_t> hashes_;    // by code
  std::vector<std::uint32_t> slots_;     // open addressing: code + 1, 0 = empty
};

/// Validity bits: bit i set when row i holds a value. While every row so far is valid (or every
/// row null) no bits are stored at all: the mask is materialized at the first row that differs.
class Validity {
 public:
  void push(bool valid) {
    if (words_.empty()) {
      if (size_ == 0) uniform_ = valid;
      if (valid == uniform_) {
        ++size_;
        return;
      }
      materialize();
    }
    if ((size_ & 63) == 0) words_.push_back(0);
    if (valid) words_.back() |= std::uint64_t{1} << (size_ & 63);
    ++size_;
  }
  bool get(std::size_t i) const noexcept {
    return words_.empty() ? uniform_ : ((words_[i >> 6] >> (i & 63)) & 1) != 0;
  }
  void set(std::size_t i, bool valid) {
    if (words_.empty()) {
      if (valid == uniform_) return;
      materialize();
    }
    const std::uint64_t bit = std::uint64_t{1} << (i & 63);
    if (valid) words_[i >> 6] |= bit; else words_[i >> 6] &= ~bit;
  }
  std::size_t size() const noexcept { return size_; }
  /// Appends all bits of another mask.
  void append(const Validity& other);
  /// Appends n flags (nullptr: n times true).
  void append_flags(const bool* valid, std::size_t n);
  /// Appends n times the same flag.
  void append_same(bool valid, std::size_t n);
  void reserve(std::size_t n) {
    if (!words_.empty()) words_.reserve((n + 63) / 64);
  }
  void clear() noexcept {
    words_.clear();
    size_ = 0;
    uniform_ = true;
  }
  /// Bytes held.
  std::size_t memory_bytes() const noexcept { return words_.capacity() * sizeof(std::uint64_t); }

 private:
  friend class ColumnReader;
  void materialize();
  std::vector<std::uint64_t> words_;
  std::size_t size_ = 0;
  bool uniform_ = true;  // the value of every row while words_ is empty
};

/// int64 values stored as `base + scale × q` with q unsigned in the narrowest width that holds
/// them all (0, 1, 2, 3, 4 or 8 bytes; 0 when every value is the same), scale the largest power of
/// 1000 (up to 10^9) that divides them all: whole-second nanosecond stamps take 3-4 bytes, small
/// counts and codes one. The encoding widens (re-encoding what is stored) when a value does not
/// fit; get() returns exactly what push() or set() stored. push_any() reserves a slot whose value
/// does not matter (a null's): it never widens the encoding, and reads back as some value.
class PackedInts {
 public:
  PackedInts() = default;
  PackedInts(const PackedInts& other);
  PackedInts& operator=(const PackedInts& other);
  PackedInts(PackedInts&& other) noexcept;
  PackedInts& operator=(PackedInts&& other) noexcept;
  ~PackedInts();

  std::size_t size() const noexcept { return size_; }
  std::int64_t get(std::size_t i) const noexcept {
    // Widths 1-4: one 4-byte load and a mask (buffers have slack past the end), no jump table.
    if (width_ - 1u < 4u) return base_ + scale_ * static_cast<std::int64_t>(load<std::uint32_t>(width_ * i) & low_mask_);
    if (width_ == 0) return base_;
    return load<std::int64_t>(8 * i);
  }
  void push(std::int64_t v) {
    std::uint64_t q;
    if (width_ == 0) {
      if (v == base_ && min_ <= max_) {
        ++size_;
        return;
      }
    } else if (width_ == 8) {
      if ((size_ + 1) * 8 > cap_) grow(size_ + 1);
      store(size_++, static_cast<std::uint64_t>(v));
      note(v);
      return;
    } else if (encode(v, q)) {
      if ((size_ + 1) * width_ > cap_) grow(size_ + 1);
      store(size_++, q);
      note(v);
      return;
    }
    push_slow(v);
  }
  /// Appends a slot whose value does not matter.
  void push_any() {
    if (width_ != 0) {
      if ((size_ + 1) * width_ > cap_) grow(size_ + 1);
      store(size_, 0);
    }
    ++size_;
  }
  /// Appends n slots whose values do not matter.
  void push_any(std::size_t n) {
    if (width_ != 0) {
      if ((size_ + n) * width_ > cap_) grow(size_ + n);
      std::memset(data_ + size_ * width_, 0, n * width_);
    }
    size_ += n;
  }
  void set(std::size_t i, std::int64_t v) {
    std::uint64_t q;
    if (width_ == 0) {
      if (v == base_ && min_ <= max_) return;
    } else if (width_ == 8) {
      store(i, static_cast<std::uint64_t>(v));
      note(v);
      return;
    } else if (encode(v, q)) {
      store(i, q);
      note(v);
      return;
    }
    set_slow(i, v);
  }
  /// Multiplies every value by `factor` (> 0); false, with nothing changed, when a value would
  /// leave ±limit.
  bool scale_all(std::int64_t factor, std::int64_t limit);
  /// Appends other's values; where `valid` (other's validity) says null, the slot does not matter.
  void append(const PackedInts& other, const Validity* valid = nullptr);
  /// Appends n values at once; where valid[i] is false (valid == nullptr: none) the slot does
  /// not matter. The encoding is widened once for the batch, then stored in a tight loop.
  void append_values(const std::int64_t* v, const bool* valid, std::size_t n);
  /// Keeps the values at the given indices, in that order.
  void permute(std::span<const std::uint32_t> order);
  void reserve(std::size_t n);
  void clear() noexcept;
  /// Bytes per value (0 while all values are equal).
  unsigned width() const noexcept { return width_; }
  /// Bytes in use (size × width).
  std::size_t memory_bytes() const noexcept { return size_ * width_; }

 private:
  friend class ColumnReader;
  template <class T>
  T load(std::size_t byte) const noexcept {
    T v;
    std::memcpy(&v, data_ + byte, sizeof(T));  // may read up to 3 bytes past the values: buffers have slack
    return v;
  }
  void store(std::size_t i, std::uint64_t q) noexcept {
    switch (width_) {
      case 1: data_[i] = static_cast<unsigned char>(q); break;
      case 2: { const auto v = static_cast<std::uint16_t>(q); std::memcpy(data_ + 2 * i, &v, 2); break; }
      case 3: { const auto v = static_cast<std::uint32_t>(q); std::memcpy(data_ + 3 * i, &v, 3); break; }
      case 4: { const auto v = static_cast<std::uint32_t>(q); std::memcpy(data_ + 4 * i, &v, 4); break; }
      default: std::memcpy(data_ + 8 * i, &q, 8); break;
    }
  }
  // The stored form of v in the current encoding (0 < width_ < 8), when it has one.
  bool encode(std::int64_t v, std::uint64_t& q) const noexcept {
    if (v < base_) return false;
    q = static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(base_);
    switch (exp_) {  // constant divisors: multiplications, not divisions
      case 0: break;
      case 1: if (q % 1'000u) return false; q /= 1'000u; break;
      case 2: if (q % 1'000'000u) return false; q /= 1'000'000u; break;
      default: if (q % 1'000'000'000u) return false; q /= 1'000'000'000u; break;
    }
    return q <= limit_;
  }
  void note(std::int64_t v) noexcept {
    if (v < min_) min_ = v;
    if (v > max_) max_ = v;
  }
  void grow(std::size_t n);
  bool fits(std::int64_t v) const noexcept {
    std::uint64_t q;
    return width_ == 0 ? min_ <= max_ && v == base_ : width_ == 8 || encode(v, q);
  }
  void push_slow(std::int64_t v);
  void set_slow(std::size_t i, std::int64_t v);
  // Re-encodes every value so that v fits too.
  void widen_for(std::int64_t v);

  unsigned char* data_ = nullptr;  // size_ values of width_ bytes; cap_ bytes usable (+8 slack)
  std::size_t size_ = 0, cap_ = 0;
  std::int64_t base_ = 0;          // the value of every slot while width_ == 0
  std::int64_t scale_ = 1;         // 1000^exp_ (1 at width 8)
  std::uint64_t limit_ = 0;        // largest q of the width
  std::int64_t min_ = INT64_MAX, max_ = INT64_MIN;  // bounds of the values pushed or set (not push_any)
  unsigned width_ = 0, exp_ = 0;
  std::uint32_t low_mask_ = 0;     // the low width_ bytes (widths 1-4)
};

/// double values stored as decimal fixed point in PackedInts (value = integer / 10^k, k <= 4)
/// while every value round-trips exactly (bit for bit), else as plain doubles. Measurements
/// printed with a few decimals (`45`, `12.3`, `63.25`) take one to four bytes.
class PackedFloats {
 public:
  std::size_t size() const noexcept { return raw_ ? raw_values_.size() : ints_.size(); }
  double get(std::size_t i) const noexcept {
    if (raw_) return raw_values_[i];
    return decode(ints_.get(i), decimals_);
  }
  void push(double v) {
    std::int64_t q;
    if (!raw_ && encode(v, decimals_, q)) ints_.push(q);
    else push_slow(v);
  }
  /// Appends a slot whose value does not matter (see PackedInts::push_any).
  void push_any() {
    if (raw_) raw_values_.push_back(0.0);
    else ints_.push_any();
  }
  void push_any(std::size_t n) {
    if (raw_) raw_values_.resize(raw_values_.size() + n, 0.0);
    else ints_.push_any(n);
  }
  void set(std::size_t i, double v);
  void append(const PackedFloats& other, const Validity* valid = nullptr);
  /// Appends n values at once; where valid[i] is false the slot does not matter.
  void append_values(const double* v, const bool* valid, std::size_t n);
  void permute(std::span<const std::uint32_t> order);
  void reserve(std::size_t n);
  void clear() noexcept;
  std::size_t memory_bytes() const noexcept { return ints_.memory_bytes() + raw_values_.size() * sizeof(double); }

 private:
  friend class ColumnReader;
  static double decode(std::int64_t q, unsigned k) noexcept {
    return k == 0 ? static_cast<double>(q) : static_cast<double>(q) / kPow10[k];
  }
  static bool encode(double v, unsigned k, std::int64_t& q) noexcept {
    const double x = v * kPow10[k];
    if (!(x > -4.0e15 && x < 4.0e15)) return false;  // also NaN
    q = static_cast<std::int64_t>(x < 0 ? x - 0.5 : x + 0.5);
    return std::bit_cast<std::uint64_t>(decode(q, k)) == std::bit_cast<std::uint64_t>(v);  // -0.0 stays raw
  }
  void push_slow(double v);
  // Makes v encodable (more decimals, or raw); false when raw.
  bool adapt(double v);
  void go_raw();

  static constexpr unsigned kMaxDecimals = 4;
  static constexpr double kPow10[kMaxDecimals + 1] = {1, 10, 100, 1000, 10000};
  PackedInts ints_;
  std::vector<double> raw_values_;
  unsigned decimals_ = 0;
  bool raw_ = false;
};

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
