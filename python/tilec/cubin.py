"""Resource usage of CUDA kernels, read from a cubin (an ELF file) without CUDA tools.

In a cubin every kernel `NAME` has a code section `.text.NAME` whose sh_info field indexes
the kernel's symbol in its low 24 bits. Its registers per thread are the EIATTR_REGCOUNT
entry (attribute 0x2f: symbol index, count) of the `.nv.info` section, or, in cubins
without one (sm_80 and older), the top byte of that sh_info. A kernel with static shared
memory has a `.nv.shared.NAME` section of that many bytes, plus the 1 KB the system
reserves per block where the cubin has a `.nv.shared.reserved.*` section (sm_90). (ptxas -v
reports the same numbers: tests/python/test_toolbox.py checks them against it for sm_80
and sm_90a.)"""
import struct

from ._lib import TilecError


RESERVED_SHARED = 1024  # per block, in .nv.shared.NAME where .nv.shared.reserved.* exists
EIATTR_REGCOUNT = 0x2F
EIFMT_SVAL = 4  # an attribute with a 16-bit size and that many bytes of payload


def _sections(data):
    """[(name, sh_type, sh_info, sh_size, bytes)] of a 64-bit little-endian ELF image."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise TilecError("not a 64-bit little-endian ELF file (a cubin)")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = []
    for i in range(shnum):
        name, typ, _flags, _addr, off, size, _link, info = struct.unpack_from(
            "<IIQQQQII", data, shoff + i * shentsize)
        heads.append((name, typ, info, off, size))
    strtab = heads[shstrndx]
    names = data[strtab[3]:strtab[3] + strtab[4]]

    def name_of(o):
        return names[o:names.index(b"\0", o)].decode("utf-8", "replace")
    return [(name_of(n), typ, info, size, data[off:off + size])
            for n, typ, info, off, size in heads]


def _regcounts(info_section):
    """{symbol index: registers} from a .nv.info section's EIATTR_REGCOUNT entries."""
    out, p = {}, 0
    while p + 4 <= len(info_section):
        fmt, attr = info_section[p], info_section[p + 1]
        size, = struct.unpack_from("<H", info_section, p + 2)
        if fmt != EIFMT_SVAL:
            p += 4
            continue
        if attr == EIATTR_REGCOUNT and size >= 8:
            sym, regs = struct.unpack_from("<II", info_section, p + 4)
            out[sym] = regs
        p += 4 + size
    return out


def resource_usage(data):
    """{kernel name: {"registers": int, "static_shared_bytes": int}} of a cubin image."""
    out = {}
    secs = _sections(data)
    regcounts = {}
    for name, _typ, _info, _size, body in secs:
        if name == ".nv.info":
            regcounts.update(_regcounts(body))
    reserved = any(name.startswith(".nv.shared.reserved.") for name, *_ in secs)
    for name, _typ, info, _size, _body in secs:
        if name.startswith(".text."):
            regs = regcounts.get(info & 0xFFFFFF, info >> 24)
            out[name[6:]] = {"registers": regs, "static_shared_bytes": 0}
    for name, _typ, _info, size, _body in secs:
        if name.startswith(".nv.shared.") and name[11:] in out:
            out[name[11:]]["static_shared_bytes"] = \
                size - RESERVED_SHARED if reserved and size >= RESERVED_SHARED else size
    return out
