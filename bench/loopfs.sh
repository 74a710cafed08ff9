# Shared by the device benchmarks (root): xfs on a loop device opened with --direct-io=on (without it this
# machine's page cache would serve the "disk" at RAM speed) mounted at MNT, sized for the largest SCALE in
# $scales (or SIZE_SCALE; image_size, set by the caller, overrides), reused when mounted already and removed on exit unless KEEP=1; run_capped runs a
# command inside a cgroup v1 memory group, page cache included, after dropping caches; ensure_graph generates a
# graph directory there once.
# Env: IMAGE (/var/tmp/strata-bench.img), MNT (/mnt/strata-bench).
[[ $(id -u) == 0 ]] || { echo "needs root (losetup, mount, cgroups, drop_caches)" >&2; exit 1; }
image=${IMAGE:-/var/tmp/strata-bench.img} mnt=${MNT:-/mnt/strata-bench}
cg=/sys/fs/cgroup/memory/strata-bench
log() { echo "[$(date +%T)] $*" >&2; }

if ! mountpoint -q "$mnt"; then
  max=${SIZE_SCALE:-0}; for s in "${scales[@]}"; do ((s > max)) && max=$s; done
  size=${image_size:-$(( (1 << max) * 16 * 8 * 5 / 2 + (2 << 30) ))}  # edges + adjacency + O(N) files, with room
  truncate -s "$size" "$image"
  loop=$(losetup --direct-io=on --find --show "$image")
  mkfs.xfs -q -f "$loop"
  mkdir -p "$mnt"
  mount "$loop" "$mnt"
  log "xfs on $loop ($(losetup -l -n -O DIO "$loop" | tr -d ' ') direct-io), $(numfmt --to=iec "$size") at $mnt"
fi
loop=$(findmnt -n -o SOURCE "$mnt")
cleanup() {
  [[ ${KEEP:-0} == 1 ]] && return
  umount "$mnt" 2>/dev/null || true
  losetup -d "$loop" 2>/dev/null || true
  rm -f "$image"
}
trap cleanup EXIT
mkdir -p "$cg"

# ensure_graph DIR SCALE [generate flags...]: the graph directory, generated onto the mount unless already there.
ensure_graph() {
  local g=$1 scale=$2; shift 2
  [[ -f $g/graph.hdr ]] && return
  log "SCALE $scale: generating onto xfs"
  "$strata" generate --scale "$scale" --out "$g" "$@" 2>/dev/null
}

# remove_and_trim PATH...: the paths removed from the mount and their blocks handed back to the host (fstrim: the loop device
# punches holes in the sparse image). Without it the image keeps every block the runs ever wrote: rebuilding the
# SCALE 28 CSR on one kept mount filled the host's 79 GB on its third build (2026-12-07).
remove_and_trim() {
  rm -rf "$@"
  fstrim "$mnt" 2>/dev/null || true
}

# run_capped CAP_BYTES COMMAND...: the command inside the capped group; prints "peak_bytes" after strata's output.
run_capped() {
  local cap=$1; shift
  sync; echo 3 >/proc/sys/vm/drop_caches
  echo 0 >"$cg/memory.force_empty" 2>/dev/null || true  # page cache charged by earlier runs
  echo "$cap" >"$cg/memory.limit_in_bytes" || true
  if [[ $(cat "$cg/memory.limit_in_bytes") != $(( cap / 4096 * 4096 )) ]]; then
    echo "cannot set the cgroup limit to $cap (usage $(cat "$cg/memory.usage_in_bytes"))" >&2; exit 1
  fi
  echo 0 >"$cg/memory.max_usage_in_bytes"
  local rc=0
  bash -c 'echo $$ >'"$cg"'/cgroup.procs && exec "$@"' _ "$@" || rc=$?
  echo "peak_bytes: $(cat "$cg/memory.max_usage_in_bytes")"
  return $rc  # a failed run stops the benchmark: its JSON would be the previous run's
}
