#!/usr/bin/env bash
# `strata generate` and `info`: the checksum contract, bad specs, atomic writes, damaged directories.
source "$(dirname "$0")/lib.sh" || exit 1  # never go on without its private $tmp

# --checksum prints the contract lines (values from GRAPH500.md section 6)
out=$("$strata" generate --scale 10 --checksum)
expect "checksum edges" grep -qx "edges: 16384" <<<"$out"
expect "checksum self_loops" grep -qx "self_loops: 144" <<<"$out"
expect "checksum fnv line (GRAPH500.md section 6)" grep -qx "fnv1a64: 0xb43b86c980db5ae1" <<<"$out"

expect_error "SCALE 0" "SCALE must be in 1..40" "$strata" generate --scale 0 --checksum
expect_error "SCALE 41" "SCALE must be in 1..40" "$strata" run --scale 41
expect_error "edgefactor 0" "edgefactor must be at least 1" "$strata" generate --scale 5 --edgefactor 0 --checksum
expect_error "malformed seed" "malformed --seed" "$strata" generate --scale 5 --seed 7 --checksum
expect_error "malformed seed number" "malformed seed" "$strata" generate --scale 5 --seed 1,x --checksum
expect_error "negative seed" "malformed seed" "$strata" generate --scale 5 --seed -1,2 --checksum
expect_error "unknown flag" "--bogus" "$strata" run --scale 5 --bogus
expect_error "too big for memory" "of memory for an in-core run" "$strata" run --scale 36
expect_error "unwritable out" "cannot create" "$strata" generate --scale 5 --out /proc/strata-graph
expect_error "--force without --out" "--force replaces the directory --out names: it needs --out DIR" \
  "$strata" generate --scale 5 --checksum --force
expect_error "missing graph" "does not exist" "$strata" run --graph "$tmp/nothing"

"$strata" generate --scale 8 --out "$tmp/g" 2>/dev/null
expect "generate writes a directory" test -f "$tmp/g/graph.hdr"
expect_error "existing out" "already exists" "$strata" generate --scale 8 --out "$tmp/g"
expect "info ok" bash -c "'$strata' info '$tmp/g' | grep -qx 'checksums: ok'"
expect "force replaces" "$strata" generate --scale 9 --out "$tmp/g" --force
expect "info sees new SCALE" bash -c "'$strata' info '$tmp/g' | grep -qx 'SCALE: 9'"
# A file or a directory that is not Strata's: refused with or without --force, without suggesting --force, untouched.
echo keep >"$tmp/file"
mkdir "$tmp/notes" && echo keep >"$tmp/notes/a.txt"
for target in file notes; do
  for force in "" --force; do
    # shellcheck disable=SC2086  # force: no flag or one word
    expect_error "$target${force:+ $force}: not Strata's, refused" "$tmp/$target already exists and is not a Strata directory" \
      "$strata" generate --scale 8 --out "$tmp/$target" $force
  done
done
expect "not Strata's: left as they were" bash -c "grep -qx keep '$tmp/file' && grep -qx keep '$tmp/notes/a.txt'"

# A full disk (here a file-size limit) fails the write and leaves nothing behind.
expect_error "full disk" "cannot write" bash -c "ulimit -f 64; exec '$strata' generate --scale 12 --out '$tmp/full'"
expect "no partial output" bash -c "! ls '$tmp' | grep -q full"

cp -r "$tmp/g" "$tmp/trunc" && truncate -s -16 "$tmp/trunc/edges.bin"
expect_error "truncated" "truncated" "$strata" info "$tmp/trunc"
expect_error "truncated run" "truncated" "$strata" run --graph "$tmp/trunc" --roots 2
cp -r "$tmp/g" "$tmp/flip" && printf '\x55' | dd of="$tmp/flip/edges.bin" bs=1 seek=1000 conv=notrunc 2>/dev/null
expect_error "bit flip info" "checksum mismatch" "$strata" info "$tmp/flip"
expect_error "bit flip run" "checksum mismatch" "$strata" run --graph "$tmp/flip" --roots 2
cp -r "$tmp/g" "$tmp/magic" && printf 'X' | dd of="$tmp/magic/graph.hdr" bs=1 seek=0 conv=notrunc 2>/dev/null
expect_error "bad magic" "bad magic" "$strata" info "$tmp/magic"

# info reads every CSR built in the directory whole against its checksums (kernel 2's and kernel 3's here; a rank's
# rows in mpi_tiered.sh), names the damaged one with the way to rebuild it, and passes over unfinished builds.
expect_error "info without a directory" "info needs a graph directory" "$strata" info
"$strata" generate --scale 8 --out "$tmp/c" 2>/dev/null
expect "info: no CSR yet" bash -c "'$strata' info '$tmp/c' | grep -q '^csr: none built'"
"$strata" run --graph "$tmp/c" --roots 2 --kernel both --placement out-of-core >/dev/null 2>&1
mkdir "$tmp/c/csr-p1.tmp-1"
out=$("$strata" info --graph "$tmp/c")
expect "info: kernel 2's CSR read and checked" grep -qE "^csr csr-p1: kernel 2's 4-byte ids, 1 partition, 256 vertices, [0-9]+ entries, .*checksums: ok$" <<<"$out"
expect "info: kernel 3's CSR read and checked" grep -qE "^csr csr-w-p1: kernel 3's .*checksums: ok$" <<<"$out"
expect "info: two CSRs, the unfinished build left out" test "$(grep -c '^csr ' <<<"$out")" -eq 2
cp -r "$tmp/c" "$tmp/cflip" && printf '\xff\xff' | dd of="$tmp/cflip/csr-p1/adj.0.bin" bs=1 seek=100 conv=notrunc 2>/dev/null
expect_error "info: a CSR block flipped" "csr-p1/adj.0.bin is corrupted: checksum mismatch in block 0 (bytes 0..20479); remove $tmp/cflip/csr-p1 and run again" \
  "$strata" info "$tmp/cflip"
cp -r "$tmp/c" "$tmp/cmeta" && printf '\xff\xff' | dd of="$tmp/cmeta/csr-w-p1/meta.bin" bs=1 seek=100 conv=notrunc 2>/dev/null
expect_error "info: a CSR's meta.bin flipped" "csr-w-p1/meta.bin is corrupted (checksum mismatch)" "$strata" info "$tmp/cmeta"
cp -r "$tmp/c" "$tmp/ctrunc" && truncate -s 4096 "$tmp/ctrunc/csr-p1/adj.0.bin"
expect_error "info: a CSR's lists truncated" "adj.0.bin has 4096 bytes, expected" "$strata" info "$tmp/ctrunc"
rm -rf "$tmp/ctrunc/csr-p1" && mkdir "$tmp/ctrunc/csr-p1"  # the name a run reads, no header: refused as the run refuses it
expect_error "info: a CSR directory without its header" "cannot open $tmp/ctrunc/csr-p1/csr.hdr" "$strata" info "$tmp/ctrunc"
expect_error "run: the same directory, the same refusal" "cannot open $tmp/ctrunc/csr-p1/csr.hdr" \
  "$strata" run --graph "$tmp/ctrunc" --roots 2 --placement out-of-core

finish
