#include "gpucost/table.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace gpucost {
namespace {

TEST(Table, ColumnsAppendNullsAndValues) {
  Table t("t");
  const auto i = t.add_column("count", ColumnType::kInt64);
  const auto f = t.add_column("watts", ColumnType::kFloat64, "W");
  const auto d = t.add_column("gpu", ColumnType::kDict);
  const auto x = t.add_column("text", ColumnType::kText);
  for (int r = 0; r < 130; ++r) {  // more than two validity words
    t.ts().push_int(r * 10);
    if (r % 3 == 0) t.column(i).push_null(); else t.column(i).push_int(r);
    t.column(f).push_float_or_null(r % 5 == 0 ? std::nan("") : r * 0.5);
    t.column(d).push_string(r % 2 ? "0000:01:00" : "0000:02:00");
    t.column(x).push_string(std::string(static_cast<std::size_t>(r % 4), 'a'));
  }
  ASSERT_TRUE(t.consistent());
  EXPECT_EQ(t.rows(), 130u);
  EXPECT_FALSE(t.column(i).is_valid(0));
  EXPECT_TRUE(t.column(i).is_valid(1));
  EXPECT_EQ(t.column(i).get_int(128), 128);
  EXPECT_FALSE(t.column(i).is_valid(129));
  EXPECT_FALSE(t.column(f).is_valid(125));
  EXPECT_DOUBLE_EQ(t.column(f).get_float(127), 63.5);
  EXPECT_EQ(t.column(d).dictionary().size(), 2u);
  EXPECT_EQ(t.column(d).get_string(3), "0000:01:00");
  EXPECT_EQ(t.column(x).get_string(7), "aaa");
  EXPECT_EQ(t.column(x).get_string(8), "");
  EXPECT_EQ(t.column(f).unit(), "W");
  EXPECT_EQ(t.find("gpu"), d);
  EXPECT_EQ(t.find("nope"), Table::npos);
}

TEST(Table, PermuteReordersEveryColumnTypeAndDrops) {
  Table t;
  const auto d = t.add_column("d", ColumnType::kDict);
  const auto x = t.add_column("x", ColumnType::kText);
  const char* words[] = {"zero", "one", "two", "three"};
  for (int r = 0; r < 4; ++r) {
    t.ts().push_int(r);
    t.column(d).push_string(words[r]);
    if (r == 2) t.column(x).push_null(); else t.column(x).push_string(words[r]);
  }
  const std::vector<std::uint32_t> order{3, 2, 0};
  t.permute(order);
  ASSERT_EQ(t.rows(), 3u);
  EXPECT_EQ(t.ts().get_int(0), 3);
  EXPECT_EQ(t.column(d).get_string(1), "two");
  EXPECT_EQ(t.column(x).get_string(0), "three");
  EXPECT_FALSE(t.column(x).is_valid(1));
  EXPECT_EQ(t.column(x).get_string(2), "zero");
}

TEST(Table, AppendReinternsDictionaries) {
  Table a, b;
  const auto da = a.add_column("d", ColumnType::kDict);
  const auto db = b.add_column("d", ColumnType::kDict);
  a.ts().push_int(1);
  a.column(da).push_string("x");
  b.ts().push_int(2);
  b.column(db).push_string("y");
  b.ts().push_null();
  b.column(db).push_string("x");
  a.append(b);
  ASSERT_EQ(a.rows(), 3u);
  EXPECT_EQ(a.column(da).get_string(1), "y");
  EXPECT_EQ(a.column(da).get_code(2), a.column(da).get_code(0));
  EXPECT_FALSE(a.ts().is_valid(2));
}

TEST(Table, AddColumnToNonEmptyTableIsALogicError) {
  Table t;
  t.ts().push_int(1);
  EXPECT_THROW(t.add_column("late", ColumnType::kInt64), std::logic_error);
}

}  // namespace
}  // namespace gpucost

namespace gpucost {
namespace {

std::string label(char prefix, int n) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%c%d", prefix, n);
  return buf;
}

TEST(Table, BulkAppendMatchesRowByRowAtAnyBitOffset) {
  for (int first : {0, 1, 63, 64, 65}) {
    Table a, b;
    const auto ai = a.add_column("i", ColumnType::kInt64), bi = b.add_column("i", ColumnType::kInt64);
    const auto ax = a.add_column("x", ColumnType::kText), bx = b.add_column("x", ColumnType::kText);
    const auto ad = a.add_column("d", ColumnType::kDict), bd = b.add_column("d", ColumnType::kDict);
    for (int r = 0; r < first; ++r) {
      a.ts().push_int(r);
      a.column(ai).push_int(r);
      a.column(ax).push_string(label('a', r));
      a.column(ad).push_string("shared");
    }
    for (int r = 0; r < 70; ++r) {
      b.ts().push_int(1000 + r);
      if (r % 7 == 0) b.column(bi).push_null(); else b.column(bi).push_int(r);
      if (r % 5 == 0) b.column(bx).push_null(); else b.column(bx).push_string(label('b', r));
      if (r % 3 == 0) b.column(bd).push_null(); else b.column(bd).push_string(r % 2 ? "shared" : "other");
    }
    a.append(b);
    ASSERT_EQ(a.rows(), static_cast<std::size_t>(first + 70));
    ASSERT_TRUE(a.consistent());
    for (int r = 0; r < 70; ++r) {
      const std::size_t row = static_cast<std::size_t>(first + r);
      EXPECT_EQ(a.column(ai).is_valid(row), r % 7 != 0) << first << ":" << r;
      if (r % 7) { EXPECT_EQ(a.column(ai).get_int(row), r); }
      EXPECT_EQ(a.column(ax).is_valid(row), r % 5 != 0);
      if (r % 5) { EXPECT_EQ(a.column(ax).get_string(row), label('b', r)); }
      if (r % 3) { EXPECT_EQ(a.column(ad).get_string(row), r % 2 ? "shared" : "other"); }
    }
    if (first > 0) { EXPECT_EQ(a.column(ax).get_string(0), "a0"); }
    EXPECT_LE(a.column(ad).dictionary().size(), 2u);
  }
}

TEST(ColumnReader, NoneValidOnlyWhenEveryRowIsNull) {
  Column c("x", ColumnType::kFloat64);
  for (int i = 0; i < 100; ++i) c.push_null();
  EXPECT_TRUE(ColumnReader(c).none_valid());
  c.push_float(1.5);
  EXPECT_FALSE(ColumnReader(c).none_valid());  // one value among the nulls
  Column v("y", ColumnType::kInt64);
  for (int i = 0; i < 100; ++i) v.push_int(i);
  EXPECT_FALSE(ColumnReader(v).none_valid());
}

}  // namespace
}  // namespace gpucost
