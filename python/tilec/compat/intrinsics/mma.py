"""mma.sync from TileLang's language: the TensorCoreIntrinEmitter (ldmatrix_a/b, mma,
stmatrix over a block's warps) and the layout helpers TileLang exports beside it
(get_ldmatrix_offset, get_mma_micro_size, mma_store_index_map, get_swizzle_layout,
make_mma_swizzle_layout), written for tilec from the PTX ISA's fragment layouts. The
emitter's methods emit T.ptx_ldmatrix / T.ptx_mma (tilec's primitives) on T.alloc_local
buffers; A and B in shared memory as 2-D buffers, C as a 2-D or 4-D (tile, tile, 16, n)
buffer. Runs in CPython and in libtilec's meta level alike (see __init__.py); whoever
runs it binds T, TileLang's language module, first (compat/__init__.py and libtilec: the
module would otherwise import the compatibility layer while that is being built)."""

# TileLang's operand spellings for T.ptx_mma
_ABBREVIATIONS = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "int8": "int8",
                  "uint8": "uint8", "int32": "int32", "float8_e4m3": "e4m3",
                  "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2", "float64": "fp64"}


def _bits(dtype):
    return T.dtype(dtype).bits


def _name(dtype):
    return str(T.dtype(dtype))


def get_mma_micro_size(dtype="float16"):
    """(x, y, k) of one mma tile: 16 x 16, k 32 for 8-bit inputs, else 16."""
    k = 16
    if _name(dtype) in ("float8_e4m3", "float8_e4m3fn", "float8_e5m2", "int8", "uint8"):
        k = 32
    return 16, 16, k


def mma_store_index_map(thread_id, local_id):
    """(row, col) in a 16 x 16 accumulator tile of a lane's element local_id (two n8
    tiles of the mma.sync C layout side by side)."""
    row = 8 * (local_id % 4 // 2) + thread_id // 4
    col = 8 * (local_id // 4) + 2 * (thread_id % 4) + local_id % 2
    return row, col


def get_ldmatrix_offset(matrix, row_idx, col_idx, stride, dtype="float16", transposed=False):
    """(row, col), in the shared tile, of the 16-byte row lane row_idx gives an .x4
    ldmatrix of matrix "A" (16 x k) or "B" (n16 x k), plus col_idx elements: for A and
    for B stored [k][n] lane l addresses row l % 16 at column (l // 16) 16-byte chunks;
    for A stored [k][m] (transposed) and B stored [n][k], row 8 (l // 16) + l % 8 at
    column (l % 16 // 8) chunks. 8- and 32-bit types take only A row-major and B
    [n][k] (ldmatrix moves 16-bit cells: .trans would split their elements)."""
    assert matrix == "A" or matrix == "B", "get_ldmatrix_offset: matrix must be 'A' or 'B'"
    bits = _bits(dtype)
    chunk = 128 // bits  # elements of a 16-byte row
    if bits == 16:
        if transposed:
            return 8 * (row_idx // 16) + row_idx % 8, 8 * (row_idx % 16 // 8) + col_idx % 8
        return row_idx % 16, 8 * (row_idx // 16) + col_idx % 8
    assert bits == 8 or bits == 32, \
        "get_ldmatrix_offset: ldmatrix takes 8-, 16- or 32-bit elements"
    if matrix == "A" and not transposed:
        return row_idx % 16, chunk * (row_idx // 16) + col_idx % chunk
    if matrix == "B" and transposed:
        return 8 * (row_idx // 16) + row_idx % 8, chunk * (row_idx % 16 // 8) + col_idx % chunk
    assert False, ("get_ldmatrix_offset: for 8- and 32-bit types ldmatrix reads A row-major "
                   "and B transposed ([n][k]) only")


def get_swizzle_layout(row_idx, col_idx, row_size, dtype, swizzle_bytes=None):
    """(tile, row, column) of element (row_idx, col_idx) of a shared tile whose rows hold
    row_size elements, in the XOR-swizzled layout that spreads ldmatrix's 8 rows over
    the banks: 16-byte chunks permuted within groups of swizzle_bytes (default
    min(128, row bytes)), by the row's index mod 8."""
    bits = _bits(dtype)
    row_bytes = bits * row_size // 8
    assert row_bytes % 32 == 0, "get_swizzle_layout: rows must be a multiple of 32 bytes"
    if swizzle_bytes is None:
        swizzle_bytes = min(128, row_bytes)
    per_chunk = 128 // bits
    chunks = swizzle_bytes // 16
    chunk = col_idx // per_chunk
    xor = row_idx % 8 // (8 // chunks)
    return chunk // chunks, row_idx, (chunk % chunks ^ xor) * per_chunk + col_idx % per_chunk


def make_mma_swizzle_layout(shared_buf, is_smooth=False):
    """T.Layout of shared_buf swizzled with get_swizzle_layout on its last two dims
    (identity when is_smooth or its rows are not a multiple of 64 bytes)."""
    shape = shared_buf.shape
    dtype = shared_buf.dtype
    if is_smooth or shape[-1] * _bits(dtype) % 512 != 0:
        def identity(*args):
            return args
        return T.Layout(shape, identity)

    def swizzled(*args):
        n = len(args)
        return list(args[:n - 2]) + list(get_swizzle_layout(args[n - 2], args[n - 1],
                                                            shape[-1], dtype))
    return T.Layout(shape, swizzled)


def _a_coord(e, lane, i):
    """(row, k) of element i of lane's A fragment of mma.m16n8k(8e) (PTX ISA)."""
    r = i // e
    return lane // 4 + 8 * (r % 2), e * (lane % 4) + i % e + 4 * e * (r // 2)


def _b_coord(e, lane, i):
    """(k, n) of element i of lane's B fragment of mma.m16n8k(8e) (PTX ISA)."""
    return e * (lane % 4) + i % e + 4 * e * (i // e), lane // 4


class TensorCoreIntrinEmitter:
    """TileLang's mma.sync emitter: a block of block_row_warps x block_col_warps warps,
    each computing warp_row_tiles x warp_col_tiles of C in 16 x n_dim mma tiles (n_dim
    16, or 8 when warp_col_tiles is not a multiple of 16), chunk the k extent of the
    shared tiles. Registers per lane: local_size_a / _b / _out per tile."""
    M_DIM = 16
    WARP_SIZE = 32

    def __init__(self, a_dtype="float16", b_dtype="float16", accum_dtype="float16",
                 a_transposed=False, b_transposed=False, block_row_warps=2,
                 block_col_warps=2, warp_row_tiles=8, warp_col_tiles=8, chunk=16,
                 reduce_k=1, num_elems_per_byte=1, is_m_first=False, thread_var=None):
        self.a_dtype = a_dtype
        self.b_dtype = b_dtype
        self.accum_dtype = accum_dtype
        self.a_transposed = a_transposed
        self.b_transposed = b_transposed
        self.block_row_warps = block_row_warps
        self.block_col_warps = block_col_warps
        self.warp_row_tiles = warp_row_tiles
        self.warp_col_tiles = warp_col_tiles
        self.chunk = chunk
        self.reduce_k = reduce_k
        self.num_elems_per_byte = num_elems_per_byte
        self.is_m_first = False if is_m_first is None else is_m_first
        self.thread_var = thread_var
        bits = _bits(a_dtype)
        assert bits != 64, \
            "TensorCoreIntrinEmitter: float64 (mma.m8n8k4) is not supported by tilec"
        self.k_dim = min(256 // bits, chunk)
        assert warp_row_tiles >= 16 and warp_row_tiles % 16 == 0, \
            "TensorCoreIntrinEmitter: warp_row_tiles must be a multiple of 16"
        assert warp_col_tiles >= 8 and warp_col_tiles % 8 == 0, \
            "TensorCoreIntrinEmitter: warp_col_tiles must be a multiple of 8"
        self.n_dim = 16 if warp_col_tiles % 16 == 0 else 8
        self.micro_size_x = 16
        self.micro_size_y = self.n_dim
        self.micro_size_k = self.k_dim
        self.warp_rows = warp_row_tiles // 16
        self.warp_cols = warp_col_tiles // self.n_dim
        self.local_size_a = 16 * self.k_dim // 32
        self.local_size_b = self.n_dim * self.k_dim // 32
        self.local_size_out = 16 * self.n_dim // 32
        prefixes = {8: "m16n8k8", 16: "m16n8k16", 32: "m16n8k32"}
        assert self.k_dim in prefixes, \
            "TensorCoreIntrinEmitter: no mma.sync shape for this chunk"
        self.mma_prefix = prefixes[self.k_dim]
        tf32 = _name(accum_dtype) == "float32"
        self.a_dtype_abbrv = "tf32" if tf32 and bits == 32 else _ABBREVIATIONS[_name(a_dtype)]
        self.b_dtype_abbrv = ("tf32" if tf32 and _bits(b_dtype) == 32
                              else _ABBREVIATIONS[_name(b_dtype)])
        self.accum_dtype_abbrv = _ABBREVIATIONS[_name(accum_dtype)]
        self.threads = 32 * block_row_warps * block_col_warps * reduce_k
        # ldmatrix moves 16-bit cells: 8- and 32-bit operands only in the k-contiguous order
        self.ldmatrix_a_ok = bits == 16 or not a_transposed
        self.ldmatrix_b_ok = _bits(b_dtype) == 16 or b_transposed

    def get_thread_binding(self):
        if self.thread_var is None:
            return T.get_thread_binding()
        return self.thread_var

    def extract_thread_binding(self, thread_id, is_m_first=None):
        """(lane, warp_n, warp_m) of thread_id: warps in m-major order (is_m_first:
        n-major)."""
        if is_m_first is None:
            is_m_first = self.is_m_first
        lane = thread_id % 32
        if is_m_first:
            warp_n = thread_id // 32 % self.block_col_warps
            warp_m = thread_id // (32 * self.block_col_warps) % self.block_row_warps
            return lane, warp_n, warp_m
        warp_m = thread_id // 32 % self.block_row_warps
        warp_n = thread_id // (32 * self.block_row_warps) % self.block_col_warps
        return lane, warp_n, warp_m

    def ldmatrix_a(self, A_local_buf, A_shared_buf, ki, rk=0):
        """The warp's A fragments of k-step ki (warp_rows tiles) from A_shared_buf
        ([m][k], or [k][m] when a_transposed) into A_local_buf."""
        tx, warp_n, warp_m = self.extract_thread_binding(self.get_thread_binding())
        e = 32 // _bits(self.a_dtype)
        size = self.local_size_a
        for i in T.unroll(self.warp_rows):
            m0 = warp_m * self.warp_row_tiles + i * 16
            k0 = rk * self.chunk + ki * self.k_dim
            if self.ldmatrix_a_ok:
                row, col = get_ldmatrix_offset("A", tx, 0, 0, self.a_dtype, self.a_transposed)
                if self.a_transposed:
                    T.ptx_ldmatrix(True, 4, T.access_ptr(A_shared_buf[k0 + row, m0 + col], "r"),
                                   T.access_ptr(A_local_buf[i * size], "w"))
                else:
                    T.ptx_ldmatrix(False, 4, T.access_ptr(A_shared_buf[m0 + row, k0 + col], "r"),
                                   T.access_ptr(A_local_buf[i * size], "w"))
            else:
                for j in T.serial(size):
                    r, c = _a_coord(e, tx, j)
                    A_local_buf[i * size + j] = A_shared_buf[k0 + c, m0 + r]

    def ldmatrix_b(self, B_local_buf, B_shared_buf, ki, rk=0):
        """The warp's B fragments of k-step ki (warp_cols tiles of n_dim columns) from
        B_shared_buf ([n][k] when b_transposed, else [k][n]) into B_local_buf."""
        tx, warp_n, warp_m = self.extract_thread_binding(self.get_thread_binding())
        e = 32 // _bits(self.b_dtype)
        size = self.local_size_b
        num = 4 if self.n_dim == 16 else 2
        for i in T.unroll(self.warp_cols):
            n0 = warp_n * self.warp_col_tiles + i * self.n_dim
            k0 = rk * self.chunk + ki * self.k_dim
            if self.ldmatrix_b_ok:
                lane = tx if num == 4 else tx % 16  # (.x2 reads lanes 0..15's addresses)
                row, col = get_ldmatrix_offset("B", lane, 0, 0, self.b_dtype, self.b_transposed)
                if self.b_transposed:
                    T.ptx_ldmatrix(False, num, T.access_ptr(B_shared_buf[n0 + row, k0 + col], "r"),
                                   T.access_ptr(B_local_buf[i * size], "w"))
                else:
                    T.ptx_ldmatrix(True, num, T.access_ptr(B_shared_buf[k0 + row, n0 + col], "r"),
                                   T.access_ptr(B_local_buf[i * size], "w"))
            else:  # [k][n] of 8- or 32-bit elements: each lane loads its own
                half = size * 8 // self.n_dim
                for j in T.serial(size):
                    k, n = _b_coord(e, tx, j % half)
                    B_local_buf[i * size + j] = B_shared_buf[k0 + k, n0 + n + 8 * (j // half)]

    def mma_atom(self, A_local_buf, B_local_buf, C_local_buf, inst_m_idx, inst_n_idx,
                 k_inner=0):
        """C tile (inst_m_idx, inst_n_idx) += its A row tile x B column tile: one mma.sync
        per n8 half."""
        a_off = inst_m_idx * self.local_size_a
        b_off = inst_n_idx * self.local_size_b
        c_off = (inst_m_idx * self.warp_cols + inst_n_idx) * self.local_size_out
        T.ptx_mma(self.accum_dtype, self.mma_prefix, "row", "col", self.a_dtype_abbrv,
                  self.b_dtype_abbrv, self.accum_dtype_abbrv, A_local_buf.data, a_off,
                  B_local_buf.data, b_off, C_local_buf.data, c_off, T.bool(False))
        if self.n_dim == 16:
            T.ptx_mma(self.accum_dtype, self.mma_prefix, "row", "col", self.a_dtype_abbrv,
                      self.b_dtype_abbrv, self.accum_dtype_abbrv, A_local_buf.data, a_off,
                      B_local_buf.data, b_off + self.local_size_b // 2, C_local_buf.data,
                      c_off + self.local_size_out // 2, T.bool(False))

    def mma(self, A_local_buf, B_local_buf, C_local_buf, k_inner=0):
        """The warp's C tiles += A x B of the fragments loaded by ldmatrix_a/b."""
        for i in T.unroll(self.warp_rows):
            for j in T.unroll(self.warp_cols):
                self.mma_atom(A_local_buf, B_local_buf, C_local_buf, i, j, k_inner)

    def stmatrix(self, C_local_buf, C_buf, pid_m=None, pid_n=None):
        """The warp's accumulators to C_buf: 2-D [m][n] or 4-D [tile_m][tile_n][16][n_dim]
        for the block's tile; with pid_m and pid_n, a 2-D global C at that block tile."""
        tx, warp_n, warp_m = self.extract_thread_binding(self.get_thread_binding())
        size = self.local_size_out
        ndim = len(C_buf.shape)
        assert ndim == 2 or ndim == 4, "stmatrix: C_buf must be 2-D or 4-D"
        rows = self.block_row_warps * self.warp_rows
        cols = self.block_col_warps * self.warp_cols
        for i in T.unroll(self.warp_rows):
            for j in T.unroll(self.warp_cols):
                for local_id in T.serial(size):
                    row, col = mma_store_index_map(tx, local_id)
                    value = C_local_buf[(i * self.warp_cols + j) * size + local_id]
                    tm = warp_m * self.warp_rows + i
                    tn = warp_n * self.warp_cols + j
                    if pid_m is not None and pid_n is not None:
                        C_buf[(pid_m * rows + tm) * 16 + row,
                              (pid_n * cols + tn) * self.n_dim + col] = value
                    elif ndim == 2:
                        C_buf[tm * 16 + row, tn * self.n_dim + col] = value
                    else:
                        C_buf[tm, tn, row, col] = value
