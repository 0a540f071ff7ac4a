// The layering of docs/architecture.md. The build enforces the layers themselves (one library
// per layer; a header above a layer does not compile in it: the layer_* ctest cases); checked
// here on the sources: every header carries its layer's guard, so that a new header cannot slip
// past the build's check, and inside the ground floor the text floor (text.hpp, text/) uses
// nothing above it. Each test lists every offender, so a regression names its file and line.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
const fs::path kRoot = GPUCOST_SOURCE_DIR;

struct Include {
  std::string file;  // relative to the source root
  int line;
  std::string header;
};

// The `#include "..."` lines of a C++ file, or of the C++ files under a directory.
std::vector<Include> project_includes(const fs::path& dir) {
  std::vector<Include> out;
  std::vector<fs::path> files;
  if (fs::is_regular_file(kRoot / dir)) files.push_back(kRoot / dir);
  else
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      const auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".cpp" || ext == ".hpp" || ext == ".in")) files.push_back(e.path());
    }
  for (const auto& path : files) {
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const std::string prefix = "#include \"";
      if (line.rfind(prefix, 0) != 0) continue;
      const auto end = line.find('"', prefix.size());
      out.push_back({fs::relative(path, kRoot).string(), n, line.substr(prefix.size(), end - prefix.size())});
    }
  }
  return out;
}

bool starts_with(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }

std::string describe(const std::vector<Include>& v) {
  std::string s;
  for (const auto& i : v) s += i.file + ":" + std::to_string(i.line) + ": " + i.header + "\n";
  return s;
}

// The layer a header belongs to, named as in CMakeLists.txt's gpucost_layer calls: its folder
// under include/gpucost/ or src/, or `base` for the ground floor (its top-level files, text/,
// table/, records/).
std::string layer_of(const fs::path& relative) {
  auto it = relative.begin();
  if (*it == "include") ++it;
  ++it;  // past gpucost/ or src/
  const std::string first = it->string();
  if (std::next(it) == relative.end() || first == "text" || first == "table" || first == "records") return "base";
  return first;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

TEST(Architecture, EveryHeaderGuardsItsLayer) {
  std::ifstream cmake_in(kRoot / "CMakeLists.txt");
  std::stringstream cmake;
  cmake << cmake_in.rdbuf();
  std::string offending;
  int headers = 0;
  for (const char* dir : {"include/gpucost", "src"})
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      if (!e.is_regular_file() || e.path().extension() != ".hpp") continue;
      ++headers;
      const fs::path relative = fs::relative(e.path(), kRoot);
      const std::string layer = layer_of(relative);
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      if (text.str().find("\n#ifndef GPUCOST_LAYER_" + upper(layer) + "\n") == std::string::npos)
        offending += relative.string() + ": no #ifndef GPUCOST_LAYER_" + upper(layer) + " guard\n";
      const std::string call = "gpucost_layer(" + layer;
      if (cmake.str().find(call + " ") == std::string::npos && cmake.str().find(call + "\n") == std::string::npos)
        offending += relative.string() + ": layer " + layer + " is not a gpucost_layer in CMakeLists.txt\n";
    }
  EXPECT_GT(headers, 90) << "the scanner should see the project's headers";
  EXPECT_TRUE(offending.empty()) << "headers that the build's layer check would miss:\n" << offending;
}

TEST(Architecture, TextFloorIncludesOnlyItself) {
  std::vector<Include> upward;
  for (const char* dir : {"src/text", "include/gpucost/text", "src/text.cpp", "include/gpucost/text.hpp"})
    for (const auto& i : project_includes(dir))
      if (!starts_with(i.header, "gpucost/text/") && i.header != "gpucost/text.hpp") upward.push_back(i);
  EXPECT_TRUE(upward.empty()) << "the text floor includes a module above it:\n" << describe(upward);
}

TEST(Architecture, IncludeScannerSeesTheWriters) {
  // The checks above mean something only if the scanner finds includes at all.
  bool found = false;
  for (const auto& i : project_includes("src/report"))
    found = found || i.header == "gpucost/text/json.hpp";
  EXPECT_TRUE(found);
  EXPECT_FALSE(project_includes("src/text.cpp").empty());
}

// docs/architecture.md's conventions: enum values are `kName`; an enum generated from an X-macro
// table (its body names a GPUCOST_ macro) keeps its rows' printed names.
TEST(Architecture, EnumValuesAreKNameExceptXMacroTables) {
  const std::regex enum_re(R"(enum class\s+([\w:]+)[^{;]*\{([^}]*)\};)");
  const std::regex comment_re(R"(//[^\n]*)");
  const std::regex value_re(R"(^k[A-Z0-9]\w*$)");
  std::string offending;
  int enums = 0;
  for (const char* dir : {"src", "include"})
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      const auto ext = e.path().extension();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string text = ss.str();
      for (std::sregex_iterator it(text.begin(), text.end(), enum_re), end; it != end; ++it) {
        const std::string body = std::regex_replace((*it)[2].str(), comment_re, "");
        if (body.find("GPUCOST_") != std::string::npos) continue;
        ++enums;
        std::stringstream values(body);
        for (std::string v; std::getline(values, v, ',');) {
          v = v.substr(0, v.find('='));
          v.erase(0, v.find_first_not_of(" \t\n"));
          v.erase(v.find_last_not_of(" \t\n") + 1);
          if (!v.empty() && !std::regex_match(v, value_re))
            offending += fs::relative(e.path(), kRoot).string() + ": " + (*it)[1].str() + "::" + v + "\n";
        }
      }
    }
  EXPECT_GT(enums, 20) << "the scanner should see the project's enums";
  EXPECT_TRUE(offending.empty()) << "enum values not in the kName style:\n" << offending;
}

}  // namespace
