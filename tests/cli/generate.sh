#!/usr/bin/env bash
# `strata generate` and `info`: the checksum contract, bad specs, atomic writes, damaged directories.
source "$(dirname "$0")/lib.sh"

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

finish
