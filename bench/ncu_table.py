"""One line per kernel launch of an ncu report printed as text (the output of ncu --metrics
M1,M2,... without --csv): the kernel, its block size and the metric values, in METRICS'
order. Used with profile_gemm.py to compare tilec's GEMM with cuBLAS's (docs/journal.md,
twelfth session):

    ncu --clock-control none --metrics $(python3 bench/ncu_table.py --metrics) \\
        -k regex:'tilec|gemm|nvjet' python3 bench/profile_gemm.py 4096 1024 8192 > ncu.log
    python3 bench/ncu_table.py ncu.log
"""
import re
import sys

# duration, cycles (a lower clock shows as the same cycles in more time), memory traffic,
# instructions, SM throughput
METRICS = ["gpu__time_duration.sum", "gpc__cycles_elapsed.max", "sm__cycles_active.avg",
           "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
           "smsp__inst_executed.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed"]
KERNEL = re.compile(r"^  (\S+) \(\d+, \d+, \d+\)x\((\d+), \d+, \d+\)")
METRIC = re.compile(r"^    (\S+)\s+(\S+)\s+([\d.,]+)\s*$")


def table(lines):
    """[(kernel/threads, {metric: 'value unit'})] of the launches in ncu's text output."""
    rows = []
    for line in lines:
        k = KERNEL.match(line)
        if k:
            rows.append(("%s/%s" % (k.group(1)[:40], k.group(2)), {}))
            continue
        m = METRIC.match(line)
        if m and rows:
            rows[-1][1][m.group(1)] = "%s %s" % (m.group(3), m.group(2))
    return rows


def main():
    if sys.argv[1:] == ["--metrics"]:
        print(",".join(METRICS))
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], errors="replace") as f:
        rows = table(f)
    print("kernel | " + " | ".join(METRICS))
    for name, vals in rows:
        print(name + " | " + " | ".join(vals.get(m, "-") for m in METRICS))


if __name__ == "__main__":
    main()
