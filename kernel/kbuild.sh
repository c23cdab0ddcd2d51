# shellcheck shell=bash
# Sourced by run-tests.sh and upstream-selftests.sh, which define die()
# and log(): configure a tinyconfig kernel from fragments and build its
# bzImage, the same way for the patched and the unpatched tree.
#
#	kbuild_bzimage TREE BUILD-DIR LABEL JOBS STAMP FRAGMENT...
#
# STAMP names what the image is made of; a build whose stamp matches and
# that has its bzImage is kept as it is.
#
# Every option the fragments ask for must survive olddefconfig: =y,
# strings and numbers as written, =n and "is not set" as not set.  The
# last fragment to set an option wins, as in merge_config.sh.
kbuild_bzimage() {
	local tree=$1 b=$2 label=$3 jobs=$4 stamp=$5 opt
	shift 5

	if [ -f "$b/.hijack-stamp" ] && [ -f "$b/arch/x86/boot/bzImage" ] &&
	   [ "$(cat "$b/.hijack-stamp")" = "$stamp" ]; then
		log "kernel ($label) is up to date"
		return 0
	fi
	mkdir -p "$b"
	rm -f "$b/.hijack-stamp"
	log "configuring ($label)"
	make -C "$tree" O="$b" -s tinyconfig >/dev/null
	(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$b" \
		"$b/.config" "$@" >/dev/null)
	make -C "$tree" O="$b" -s olddefconfig >/dev/null
	sed -nE 's/^(CONFIG_[A-Z0-9_]+)=n$/# \1 is not set/p
		/^CONFIG_[A-Z0-9_]+=[^n]/p; /^# CONFIG_[A-Z0-9_]+ is not set$/p' \
		"$@" | tac | awk '{ o = $1 == "#" ? $2 : $0
			sub(/=.*/, "", o) } !seen[o]++' |
	while read -r opt; do
		grep -qxF -- "$opt" "$b/.config" ||
			die "'$opt' did not stick in the $label configuration"
	done

	log "building bzImage ($label), make -j$jobs"
	if ! make -C "$tree" O="$b" -j"$jobs" bzImage >"$b/build.log" 2>&1; then
		tail -n 40 "$b/build.log" >&2
		die "kernel build ($label) failed, see $b/build.log"
	fi
	echo "$stamp" >"$b/.hijack-stamp"
}
