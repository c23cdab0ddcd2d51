# shellcheck shell=bash
# Build the Debian packages from a clean copy of the source (source after
# lib.sh), shared by deb.sh, deb-e2e.sh and the real-host guest:
#
#   deb_build DIR   the .debs of this tree in DIR, the output of the
#                   dpkg-buildpackage -us -uc -b that made them in
#                   DIR/build.log; returns its status
#
# It builds them from a clean copy of the tracked and new files of the
# git checkout (or of the dist tree), in DIR/src: about 90 s of CPU.  In
# a git checkout the .debs are kept in tests/debs/, keyed by the
# content and modes of those files, and a later call for the same files
# (the next package test, the real-host guest) takes them from there
# rather than building them again: never .debs of other sources.  One
# key is kept, and a build holds tests/debs/.lock.

deb_src_key() {
	(cd "$top_srcdir" && git ls-files -z -co --exclude-standard |
		xargs -0 -r stat -L -c '%a %n' 2>/dev/null &&
	 git ls-files -z -co --exclude-standard |
		xargs -0 -r sha256sum 2>/dev/null) | sha256sum | cut -c1-32
}

deb_build() {
	local w=$1 t key="" cache=$top_builddir/tests/debs lock rc
	for t in dpkg-buildpackage dh dpkg-deb; do
		command -v $t >/dev/null 2>&1 ||
			skip_all "no $t (apt-get install dpkg-dev debhelper)"
	done
	[ -d "$top_srcdir/debian" ] || skip_all "no debian/ in $top_srcdir"
	mkdir -p "$w"
	if git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		key=$(deb_src_key)
		mkdir -p "$cache"
		exec {lock}>"$cache/.lock"
		flock "$lock"
		if [ -f "$cache/$key/.built" ]; then
			find "$cache/$key" -maxdepth 1 -type f ! -name .built \
				-exec cp -p -t "$w" {} +
			exec {lock}>&-
			return 0
		fi
		mkdir -p "$w/src"
		git -C "$top_srcdir" ls-files -z -co --exclude-standard |
			(cd "$top_srcdir" && xargs -0 cp --parents -a -t "$w/src" 2>/dev/null)
	else
		mkdir -p "$w/src"
		cp -a "$top_srcdir/." "$w/src"
	fi
	chmod -R u+w "$w/src"
	# not inside our own make check: no make variables (TEST_LOGS...) leak in
	(cd "$w/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u HIJACK_TEST_DEB \
		dpkg-buildpackage -us -uc -b) >"$w/build.log" 2>&1
	rc=$?
	if [ -n "$key" ]; then
		if [ "$rc" = 0 ]; then
			rm -rf "${cache:?}"/*/
			mkdir -p "$cache/$key"
			find "$w" -maxdepth 1 -type f -exec cp -p -t "$cache/$key" {} + &&
				touch "$cache/$key/.built"
		fi
		exec {lock}>&-
	fi
	return "$rc"
}
