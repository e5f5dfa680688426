#include "hip/amdgpu_metadata.h"

#include <elf.h>

#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace opevo {
namespace {

struct Malformed {};

// Just enough MessagePack (https://msgpack.org/) to walk the metadata: maps, arrays, strings and
// integers are kept; other values are skipped.
struct Value {
  enum class Type { Other, Int, Str, Array, Map } type = Type::Other;
  std::int64_t integer = 0;
  std::string text;
  std::vector<Value> items;                    // Array
  std::vector<std::pair<Value, Value>> pairs;  // Map

  const Value* get(std::string_view key) const {
    for (const auto& [k, v] : pairs)
      if (k.type == Type::Str && k.text == key) return &v;
    return nullptr;
  }
};

class Reader {
 public:
  explicit Reader(std::string_view data) : m_data(data) {}

  // Throws on malformed input; depth bounds recursion on hostile data.
  Value read(int depth = 0) {
    if (depth > 32) throw Malformed{};
    const std::uint8_t tag = byte();
    Value v;
    if (tag <= 0x7f) return integer(tag);
    if (tag >= 0xe0) return integer(static_cast<std::int8_t>(tag));
    if ((tag & 0xf0) == 0x80) return map(tag & 0x0f, depth);
    if ((tag & 0xf0) == 0x90) return array(tag & 0x0f, depth);
    if ((tag & 0xe0) == 0xa0) return string(tag & 0x1f);
    switch (tag) {
      case 0xc0:
      case 0xc2:
      case 0xc3:
        return v;
      case 0xc4:
        skip(uint(1));
        return v;
      case 0xc5:
        skip(uint(2));
        return v;
      case 0xc6:
        skip(uint(4));
        return v;
      case 0xc7:
        skip(uint(1) + 1);
        return v;
      case 0xc8:
        skip(uint(2) + 1);
        return v;
      case 0xc9:
        skip(uint(4) + 1);
        return v;
      case 0xca:
        skip(4);
        return v;
      case 0xcb:
        skip(8);
        return v;
      case 0xcc:
        return integer(static_cast<std::int64_t>(uint(1)));
      case 0xcd:
        return integer(static_cast<std::int64_t>(uint(2)));
      case 0xce:
        return integer(static_cast<std::int64_t>(uint(4)));
      case 0xcf:
        return integer(static_cast<std::int64_t>(uint(8)));
      case 0xd0:
        return integer(static_cast<std::int8_t>(uint(1)));
      case 0xd1:
        return integer(static_cast<std::int16_t>(uint(2)));
      case 0xd2:
        return integer(static_cast<std::int32_t>(uint(4)));
      case 0xd3:
        return integer(static_cast<std::int64_t>(uint(8)));
      case 0xd4:
        skip(2);
        return v;
      case 0xd5:
        skip(3);
        return v;
      case 0xd6:
        skip(5);
        return v;
      case 0xd7:
        skip(9);
        return v;
      case 0xd8:
        skip(17);
        return v;
      case 0xd9:
        return string(uint(1));
      case 0xda:
        return string(uint(2));
      case 0xdb:
        return string(uint(4));
      case 0xdc:
        return array(uint(2), depth);
      case 0xdd:
        return array(uint(4), depth);
      case 0xde:
        return map(uint(2), depth);
      case 0xdf:
        return map(uint(4), depth);
      default:
        throw Malformed{};
    }
  }

 private:
  std::uint8_t byte() {
    if (m_pos >= m_data.size()) throw Malformed{};
    return static_cast<std::uint8_t>(m_data[m_pos++]);
  }
  std::uint64_t uint(int bytes) {  // big-endian
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | byte();
    return v;
  }
  void skip(std::uint64_t n) {
    if (n > m_data.size() - m_pos) throw Malformed{};
    m_pos += n;
  }
  static Value integer(std::int64_t i) {
    Value v;
    v.type = Value::Type::Int;
    v.integer = i;
    return v;
  }
  Value string(std::uint64_t n) {
    const std::size_t at = m_pos;
    skip(n);
    Value v;
    v.type = Value::Type::Str;
    v.text = std::string(m_data.substr(at, n));
    return v;
  }
  Value array(std::uint64_t n, int depth) {
    Value v;
    v.type = Value::Type::Array;
    for (std::uint64_t i = 0; i < n; ++i) v.items.push_back(read(depth + 1));
    return v;
  }
  Value map(std::uint64_t n, int depth) {
    Value v;
    v.type = Value::Type::Map;
    for (std::uint64_t i = 0; i < n; ++i) {
      Value key = read(depth + 1);
      v.pairs.emplace_back(std::move(key), read(depth + 1));
    }
    return v;
  }

  std::string_view m_data;
  std::size_t m_pos = 0;
};

// The descriptor of the first "AMDGPU" note of type NT_AMDGPU_METADATA (32) in any SHT_NOTE
// section of a little-endian ELF64 file.
std::optional<std::string_view> metadataNote(std::string_view elf) {
  constexpr std::uint32_t kNtAmdgpuMetadata = 32;
  Elf64_Ehdr eh;
  if (elf.size() < sizeof eh || std::memcmp(elf.data(), ELFMAG, SELFMAG) != 0 ||
      elf[EI_CLASS] != ELFCLASS64)
    return std::nullopt;
  std::memcpy(&eh, elf.data(), sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > elf.size() ||
      eh.e_shnum > (elf.size() - eh.e_shoff) / sizeof(Elf64_Shdr))
    return std::nullopt;
  for (std::size_t s = 0; s < eh.e_shnum; ++s) {
    Elf64_Shdr sh;
    std::memcpy(&sh, elf.data() + eh.e_shoff + s * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_NOTE || sh.sh_offset > elf.size() ||
        sh.sh_size > elf.size() - sh.sh_offset)
      continue;
    std::string_view notes = elf.substr(sh.sh_offset, sh.sh_size);
    auto pad = [](std::uint64_t n) { return (n + 3) & ~std::uint64_t{3}; };
    while (notes.size() >= sizeof(Elf64_Nhdr)) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, notes.data(), sizeof nh);
      const std::uint64_t nameAt = sizeof nh, descAt = nameAt + pad(nh.n_namesz);
      if (descAt > notes.size() || nh.n_descsz > notes.size() - descAt) break;
      const std::string_view name = notes.substr(nameAt, nh.n_namesz);
      if (nh.n_type == kNtAmdgpuMetadata && name.substr(0, 6) == "AMDGPU")
        return notes.substr(descAt, nh.n_descsz);
      notes.remove_prefix(std::min<std::uint64_t>(notes.size(), descAt + pad(nh.n_descsz)));
    }
  }
  return std::nullopt;
}

}  // namespace

std::map<std::string, KernelResources> readAmdgpuResources(std::string_view codeObject) {
  std::map<std::string, KernelResources> out;
  const auto note = metadataNote(codeObject);
  if (!note) return out;
  Value root;
  try {
    root = Reader(*note).read();
  } catch (const Malformed&) {
    return out;
  }
  const Value* kernels = root.get("amdhsa.kernels");
  if (!kernels || kernels->type != Value::Type::Array) return out;
  for (const Value& k : kernels->items) {
    const Value* name = k.get(".name");
    if (!name || name->type != Value::Type::Str) continue;
    auto number = [&](const char* key) -> std::optional<std::int64_t> {
      const Value* v = k.get(key);
      if (v && v->type == Value::Type::Int) return v->integer;
      return std::nullopt;
    };
    KernelResources& r = out[name->text];
    if (auto v = number(".vgpr_count")) r.registers = static_cast<int>(*v);
    if (auto v = number(".sgpr_count")) r.scalarRegisters = static_cast<int>(*v);
    r.staticSharedBytes = number(".group_segment_fixed_size");
    r.localBytes = number(".private_segment_fixed_size");
    const auto vSpill = number(".vgpr_spill_count"), sSpill = number(".sgpr_spill_count");
    if (vSpill || sSpill)
      r.spilledRegisters = static_cast<int>(vSpill.value_or(0) + sSpill.value_or(0));
  }
  return out;
}

}  // namespace opevo
