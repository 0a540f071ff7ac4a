#pragma once
// NVIDIA's Xid catalog as data: data/xid-catalog.csv, compiled into the binary. Each code has
// its meaning, typical cause, recommended action, gpucost's feature class and whether a person
// must act.

#ifndef GPUCOST_LAYER_FEATURES
#error "gpucost_features header: include it only in gpucost_features or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost {

/// What an Xid asks of a person.
enum class XidNeeds : std::uint8_t {
  kNone,      ///< nothing: the application restarts, or it is a warning
  kReset,     ///< a GPU reset or driver reload
  kReboot,    ///< a node reboot
  kRma,       ///< return the board
  kPerLine,  ///< the line names it (Xid 154's recovery action)
};

/// One row of the catalog.
struct XidInfo {
  int code = 0;
  std::string name;       ///< meaning, as the catalog words it
  std::string cause;      ///< application | driver | hardware | thermal-power | memory
  std::string xid_class;  ///< application | driver_firmware | memory_ecc | bus | recovery_action
  std::string action;     ///< recommended action
  XidNeeds needs = XidNeeds::kNone;
  std::string note;
  std::string mnemonic;  ///< the driver's name of the code (`GSP_ERROR`)
  std::string immediate;  ///< NVIDIA's immediate-action resolution bucket (`RESET_GPU`); empty where none
  std::string investigatory;  ///< NVIDIA's investigatory-action resolution bucket (`CONTACT_SUPPORT`)
  std::vector<std::string> subcodes;  ///< NVLink5 (144-150) sub-codes the decode table lists
};

/// The text of data/xid-catalog.csv as compiled in.
std::string_view embedded_xid_catalog_csv() noexcept;
/// Parses catalog text (`#` comment lines, the 11-column header, then one row per code); throws
/// std::invalid_argument naming the line when the header is not the known one, a row has the
/// wrong number of fields, an unknown cause, class or needs_person, or a code seen before.
std::vector<XidInfo> parse_xid_catalog(std::string_view csv);
/// The compiled-in catalog, ascending by code.
const std::vector<XidInfo>& xid_catalog();
/// The catalog row of a code, or nullptr when the catalog does not list it.
const XidInfo* xid_info(std::int64_t code) noexcept;
/// The MIG GPU instance an Xid line names (`NVRM: Xid (PCI:0000:4b:00 GPU-I:05): 43, ...` -> 5),
/// or nullopt when it names none: the driver adds `GPU-I:` after the address on a MIG-enabled GPU.
std::optional<int> xid_gpu_instance(std::string_view text) noexcept;
/// `none`, `reset`, `reboot`, `rma`, `per-line`.
std::string_view xid_needs_name(XidNeeds n) noexcept;

}  // namespace gpucost
