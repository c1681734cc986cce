"""Resource usage of CUDA kernels, read from a cubin (an ELF file) without CUDA tools.

In a cubin every kernel `NAME` has a code section `.text.NAME` whose sh_info field holds
the kernel's registers per thread in its top byte (the low bits index its symbol), and a
kernel with static shared memory has a `.nv.shared.NAME` section of that many bytes.
(ptxas -v reports the same numbers: tests/python/test_toolbox.py checks them against
it.)"""
import struct

from ._lib import TilecError


def _sections(data):
    """[(name, sh_type, sh_info, sh_size)] of a 64-bit little-endian ELF image."""
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
    return [(name_of(n), typ, info, size) for n, typ, info, _off, size in heads]


def resource_usage(data):
    """{kernel name: {"registers": int, "static_shared_bytes": int}} of a cubin image."""
    out = {}
    secs = _sections(data)
    for name, _typ, info, _size in secs:
        if name.startswith(".text."):
            out[name[6:]] = {"registers": info >> 24, "static_shared_bytes": 0}
    for name, _typ, _info, size in secs:
        if name.startswith(".nv.shared.") and name[11:] in out:
            out[name[11:]]["static_shared_bytes"] = size
    return out
