#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The libFuzzer flags a harness's .options file sets (its [libfuzzer]
# section, as OSS-Fuzz reads it), one per line as -key=value, the
# dictionary named by its path in the repository (fuzz/<dict>).  Keys
# given after the file are left out (the caller sets them itself):
#   tools/fuzz-options.sh fuzz/fuzz_type1.options [max_len ...]
set -euo pipefail
file=$1
shift
[ -f "$file" ] || exit 0
awk -v skip=" $* " '
	/^\[/ { in_lf = ($0 == "[libfuzzer]"); next }
	!in_lf || /^[ \t]*(#|$)/ { next }
	{
		key = $0; sub(/[ \t]*=.*/, "", key)
		val = $0; sub(/^[^=]*=[ \t]*/, "", val)
		if (index(skip, " " key " ")) next
		if (key == "dict") val = "fuzz/" val
		print "-" key "=" val
	}' "$file"
