# Grids whose y or z exceed CUDA's 65535 blocks (TileLang's examples/analyze/
# example_conv_analyze.py: T.Kernel(4, 262144)): the CUDA target launches them as 1-D grids
# and reads each block's indices from blockIdx.x (cuda_grid_folded); every block writes
# its indices, so a wrong or missing block shows.
import tilelang
import tilelang.language as T


def big_grid(gx=3, gy=65537, gz=65537):
    @T.prim_func
    def main(Y: T.Tensor((gy, gx), "int32"), Z: T.Tensor((gz, 2, 2), "int32")):
        with T.Kernel(gx, gy, threads=32) as (bx, by):
            Y[by, bx] = by * 8 + bx
        with T.Kernel(2, 2, gz, threads=32) as (bx, by, bz):
            Z[bz, by, bx] = bz * 16 + by * 4 + bx

    return main
