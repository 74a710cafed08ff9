# Shared by the command-line tests (tests/cli/*.sh, one ctest entry each, run in parallel): the binary as $1,
# a private temporary directory, and the checks. Each script ends with `finish`.
set -uo pipefail
strata=$1
tmp=$(mktemp -d) || { echo "FAIL: mktemp -d"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
failures=0
pass=0
# The JSON checks run on the Debian python3 that setup.sh installs when it is there, not on whatever is first on
# PATH: a version manager's shim (pyenv's) cost 0.16 s a call here, some 110 calls a suite, and may pick another
# interpreter than the one the checks were written for.
if [[ -x /usr/bin/python3 ]]; then python3() { /usr/bin/python3 "$@"; }; fi

# expect_error "what" "message fragment" command...: non-zero exit, one stderr line naming the cause.
expect_error() {
  local what=$1 fragment=$2
  shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if ((rc == 0)); then echo "FAIL: $what: exit 0"; ((failures++)); return; fi
  if [[ $err != *"$fragment"* ]]; then echo "FAIL: $what: stderr lacks '$fragment': $err"; ((failures++)); return; fi
  if (($(printf '%s\n' "$err" | wc -l) != 1)); then echo "FAIL: $what: not one line: $err"; ((failures++)); return; fi
  ((pass++))
}
expect() {
  local what=$1
  shift
  if "$@"; then ((pass++)); else echo "FAIL: $what"; ((failures++)); fi
}

# skip "why": prints a clear skip line (for checks this machine cannot make).
skip() { echo "skip: $*"; }
# skip_all "why": the whole script cannot run here: said, and reported to ctest as skipped (SKIP_RETURN_CODE 77).
skip_all() {
  skip "$@"
  exit 77
}

# need_mpi: the MPI scripts' precondition, mpirun and a strata built with Open MPI; sets up their environment.
need_mpi() {
  command -v mpirun >/dev/null 2>&1 || skip_all "mpirun not found (apt-get install openmpi-bin): the MPI tests need it"
  "$strata" --version | grep -q "Open MPI" ||
    skip_all "this strata was built without MPI (libopenmpi-dev missing when CMake ran)"
  # Open MPI keeps some allocations until the process ends: leak checks belong to the single-process tests.
  export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
  # After a non-zero exit, mpirun waits up to a second before it SIGKILLs ranks that have already ended (its
  # odls_base_sigkill_timeout): nothing checked here depends on that wait.
  export OMPI_MCA_odls_base_sigkill_timeout=0
  # mpirun keeps its session under TMPDIR/ompi.<host>.<uid>, which mpiruns started at once race to create and
  # remove ("A call to mkdir was unable to create the desired directory ... File exists"): one base a script.
  export OMPI_MCA_orte_tmpdir_base=$tmp/ompi
  mkdir -p "$OMPI_MCA_orte_tmpdir_base"
  # One machine: the ob1 messaging layer (shared memory) at once, without probing for UCX first -- MPI_Init took
  # 0.34 s a run instead of 0.12, most of what the MPI entries spend on their ~150 mpiruns.
  export OMPI_MCA_pml=ob1
  # PMIx's key store in a hash table, not the shared-memory store it sets up at each launch: an mpirun of 3 ranks
  # (a SCALE 9 run) took 0.22-0.23 s instead of 0.23-0.25 s here.
  export PMIX_MCA_gds=hash
  # hwloc without its I/O discovery: mpirun read every PCI device's config space, about 20 ms a launch on a VM
  # where each read traps (0.216 -> 0.194 s an mpirun of 2 ranks, 12 each); a run on one machine needs no NIC
  # locality.
  export HWLOC_COMPONENTS=-pci,-linuxio
}

# finish: the closing line ctest's log keeps, and the exit status.
finish() {
  echo "$pass passed, $failures failed"
  ((failures == 0))
}
