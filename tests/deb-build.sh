# shellcheck shell=bash
# Build the Debian packages from a clean copy of the source (source after
# lib.sh), shared by deb.sh and deb-e2e.sh:
#
#   deb_build DIR   copy the tracked and new files of a git checkout (or
#                   the dist tree) to DIR/src and run dpkg-buildpackage
#                   -us -uc -b there: the .debs land in DIR, the output
#                   in DIR/build.log; returns dpkg-buildpackage's status
#
# About 20 s on 2 cores: each test builds its own copy rather than
# trusting .debs a previous run may have left from other sources.

deb_build() {
	local w=$1 t
	for t in dpkg-buildpackage dh dpkg-deb; do
		command -v $t >/dev/null 2>&1 ||
			skip_all "no $t (apt-get install dpkg-dev debhelper)"
	done
	[ -d "$top_srcdir/debian" ] || skip_all "no debian/ in $top_srcdir"
	mkdir -p "$w/src"
	if git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$top_srcdir" ls-files -z -co --exclude-standard |
			(cd "$top_srcdir" && xargs -0 cp --parents -a -t "$w/src" 2>/dev/null)
	else
		cp -a "$top_srcdir/." "$w/src"
	fi
	chmod -R u+w "$w/src"
	# not inside our own make check: no make variables (TEST_LOGS...) leak in
	(cd "$w/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u HIJACK_TEST_DEB \
		dpkg-buildpackage -us -uc -b) >"$w/build.log" 2>&1
}
