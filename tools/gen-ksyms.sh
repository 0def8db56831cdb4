#!/bin/sh
# Generates the kernel symbol table (assembly for the .ksyms section) from a
# linked image: every text symbol, sorted by address. With no image, emits an
# empty table for the first link.
# usage: gen-ksyms.sh [NM] [ELF] > ksyms.S
set -eu
NM=${1:-nm}
ELF=${2:-}

emit() {
	awk '
	BEGIN { n = 0 }
	{ addr[n] = $1; name[n] = $3; n++ }
	END {
		print "\t.section .ksyms, \"a\""
		print "\t.balign 8"
		print "\t.globl ksyms_count, ksyms_addrs, ksyms_name_offsets, ksyms_names"
		print "ksyms_count:\n\t.quad " n
		print "ksyms_addrs:"
		for (i = 0; i < n; i++) print "\t.quad 0x" addr[i]
		print "ksyms_name_offsets:"
		off = 0
		for (i = 0; i < n; i++) { print "\t.long " off; off += length(name[i]) + 1 }
		print "ksyms_names:"
		for (i = 0; i < n; i++) print "\t.asciz \"" name[i] "\""
	}'
}

if [ -z "$ELF" ]; then
	emit < /dev/null
else
	"$NM" -n --defined-only "$ELF" | awk '$2 ~ /^[tTwW]$/ && $3 !~ /^\./' | emit
fi
