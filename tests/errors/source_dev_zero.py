# expect: error: cannot read '/dev/zero': larger than 16 MiB
# cmd: run /dev/zero --target c
# noloc
# A kernel file that never ends (issue 29): refused at the size limit, not read forever.
import tilelang
