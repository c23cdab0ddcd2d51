#!/bin/bash
# The Debian packages for real: build them, install them on this machine
# (apt-get install ./*.deb), log in over ssh through the INSTALLED
# pam_hijack.so (a private sshd on loopback whose PAM service names the
# module by its bare name) and the INSTALLED /usr/sbin/hijack-shell (the
# user's login shell, file capabilities from postinst) into a throw-away
# container, then remove them (hijack.conf stays, the /etc/shells entry
# goes) and purge them and check that nothing is left: no file or
# directory of the packages, no hijack.conf, no /etc/shells entry, no dpkg,
# apt or pam-auth-update state.
#
# It never touches an administrator's setup: it skips when either package
# is known to dpkg, /etc/security/hijack.conf or any file of the packages
# exists, or /etc/shells lists hijack-shell.  What it installed it purges
# on every exit.  Runs only with HIJACK_TEST_DEB=1, as root.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/deb-build.sh"
[ "${HIJACK_TEST_DEB:-0}" = 1 ] || skip_all "set HIJACK_TEST_DEB=1 to build and install the .debs"
# the EXIT trap's cleanup (the purge) also when interrupted.  bash 5.2.15
# may lose a signal that arrives while it expands a $(...) (the trap then
# fails to parse and the test runs on): it still ends in the cleanup.
trap 'exit 130' INT
trap 'exit 143' TERM
require_root
require_tools sshd ssh ssh-keygen setcap getcap apt-get dpkg-query busybox
PKGS="libpam-hijack hijack"
CONF=/etc/security/hijack.conf
HS=/usr/sbin/hijack-shell

# -- refuse to run over anything that is not ours
pkg_state() { dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null; }
for p in $PKGS; do
	st=$(pkg_state "$p")
	[ -z "$st" ] || [ "$st" = not-installed ] ||
		skip_all "cannot: package $p is '$st' here, not ours to replace or purge"
done
[ -e "$CONF" ] || [ -L "$CONF" ] && skip_all "cannot: $CONF exists, not ours to replace or purge"
! grep -qx "$HS" /etc/shells || skip_all "cannot: /etc/shells lists $HS, not ours to remove"

W=$HJ_TMP/deb
if ! deb_build "$W"; then
	not_ok "dpkg-buildpackage -us -uc -b succeeds"
	sed 's/^/# /' "$W/build.log" | tail -30
	done_testing
	exit 0
fi
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
DEBS=()
for p in $PKGS; do DEBS+=("$(ls "$W/${p}_"*"_$arch.deb")"); done
MOD=/lib/$multiarch/security/pam_hijack.so

# every path of the packages; none of the files may exist yet, and the
# directories that do not exist yet must be gone again after the purge
PATHS=$(for d in "${DEBS[@]}"; do dpkg-deb -c "$d"; done |
	awk '{ p = $6; sub(/^\./, "", p); sub(/\/$/, "", p); if (p != "") print substr($1, 1, 1), p }' | sort -u -k2)
NEWDIRS=()
while read -r type path; do
	if [ "$type" = d ]; then
		[ -e "$path" ] || NEWDIRS+=("$path")
	elif [ -e "$path" ] || [ -L "$path" ]; then
		skip_all "cannot: $path exists (installed by hand?), not ours to replace or remove"
	fi
done <<<"$PATHS"
ok "dpkg-buildpackage -us -uc -b succeeds"

# what must be as it was after the purge
snapshot() {
	cat /etc/shells
	sha256sum /etc/pam.d/common-* /var/lib/pam/* 2>&1
	find /var/lib/dpkg/info -maxdepth 1 \( -name 'hijack.*' -o -name 'libpam-hijack[.:]*' \) | sort
	ls -a /etc/security /usr/share/pam-configs
	grep -E '^Package: (hijack|libpam-hijack)$' /var/lib/dpkg/status /var/lib/apt/extended_states
}
snapshot >"$HJ_TMP/before"

# -- install (purged on every exit from here on)
export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -y -q -o DPkg::Lock::Timeout=300)
HJ_CLEANUP+=("${APT[*]} purge $PKGS >/dev/null 2>&1 || dpkg --purge $PKGS >/dev/null 2>&1")
"${APT[@]}" --no-install-recommends install "${DEBS[@]}" >"$HJ_TMP/install.log" 2>&1
rc=$?
is "apt-get install ./libpam-hijack_*.deb ./hijack_*.deb succeeds" "$rc" 0
[ $rc = 0 ] || sed 's/^/# /' "$HJ_TMP/install.log" | tail -20
grep -E '^(Setting up|Unpacking) ' "$HJ_TMP/install.log" |
	grep -vE ' (libpam-hijack|hijack)[ :]' | sed 's/^/# dependency: /'
for p in $PKGS; do
	is "$p is installed" "$(pkg_state "$p")" installed
done

# -- what the maintainer scripts did
caps() { # FILE: capability names, sorted, and the flags
	getcap "$1" | awk '{ print $2 }' | awk -F= '{ n = split($1, c, ","); for (i = 1; i <= n; i++) print c[i]; print "=" $2 }' | sort | tr '\n' ' '
}
# configure.ac's HIJACK_SHELL_CAPS (tests/sshd.sh reads it), in caps()'s form
want=$( (tr ',' '\n' <<<"${HIJACK_SHELL_CAPS%+*}"; echo "=${HIJACK_SHELL_CAPS##*+}") | sort | tr '\n' ' ')
is "postinst gave hijack-shell exactly configure's file capabilities (hijack-shell(8))" "$(caps $HS)" "$want"
is "hijack-shell is root-owned 0755, not setuid" "$(stat -c '%U %a' $HS)" "root 755"
check "postinst did not list hijack-shell in /etc/shells (su -s would bypass it)" bash -c "! grep -qx '$HS' /etc/shells"
is "$CONF is root-owned 0644" "$(stat -c '%U %a' "$CONF" 2>&1)" "root 644"
is "$CONF.d/ is there, root-owned 0755 (hijack.conf(5))" \
	"$(stat -c '%F %U %a' "$CONF.d" 2>&1)" "directory root 755"
# every installed path README and the man pages name is there (not the
# files an admin creates in their examples, nor make install's /usr/local)
examples="/etc/pam.d/hijack-try /etc/security/hijack.conf.new"
examples+=" /etc/security/hijack.conf.d/50-team-web.conf"
examples+=" /etc/security/hijack.conf.d/NAME.conf /etc/ssh/sshd_config.d/hijack.conf"
missing=""
n=0
for f in $(grep -ohE '/(usr|etc|lib)/[A-Za-z0-9_./+\\-]+' "$top_srcdir/README.md" "$top_srcdir"/man/*.[0-9] |
	sed 's/\\-/-/g; s/[.,)]*$//' | grep -i hijack | grep -v '^/usr/local/' | sort -u); do
	case " $examples " in *" $f "*) continue ;; esac
	n=$((n + 1))
	[ -e "$f" ] || missing+="$f "
done
is "the $n installed paths README and the man pages name exist" "$missing" ""
for m in hijack.1 hijack-shell.8 pam_hijack.8 hijack.conf.5; do
	check "man ${m%.*} is installed (section ${m##*.})" man -w "${m##*.}" "${m%.*}"
done
check "pam-auth-update knows the profile hijack" grep -qx hijack /var/lib/pam/seen
check "but did not enable it (Default: no)" bash -c '! grep -l pam_hijack /etc/pam.d/common-*'
# the profile, enabled and then removed as prerm does, in a private mount
# namespace over copies of the PAM stacks and debconf's database: the
# machine's own stay untouched
pa=$HJ_TMP/pam-auth
mkdir -p "$pa"
cp -a /etc/pam.d /var/lib/pam /var/cache/debconf "$pa/"
stacks() { grep -h pam_hijack /etc/pam.d/common-* | tr -s ' \t' ' ' | sed 's/ $//' | tr '\n' ','; }
out=$(export -f stacks; unshare --mount --propagation private bash -c "
	mount --bind '$pa/pam.d' /etc/pam.d && mount --bind '$pa/pam' /var/lib/pam &&
	mount --bind '$pa/debconf' /var/cache/debconf || exit 1
	pam-auth-update --enable hijack 2>&1 | grep -q 'Local modifications' && exit 2
	stacks; echo
	pam-auth-update --package --remove hijack || echo remove failed; stacks" 2>&1)
case $? in
2) skip "pam-auth-update --enable hijack" "cannot: /etc/pam.d/common-* have local modifications" ;;
*)
	is "pam-auth-update --enable hijack: account and session lines in common-*" "$(head -n1 <<<"$out")" \
		"account required pam_hijack.so,session required pam_hijack.so,session required pam_hijack.so,"
	is "pam-auth-update --package --remove hijack (prerm) takes them out" "$(tail -n +2 <<<"$out")" ""
	;;
esac
like "the installed hijack-shell runs" "$($HS --version 2>&1)" "[0-9]+\.[0-9]+"

# -- a container, two users and their rules in the installed hijack.conf
id=$$
U1=hjt1$id U2=hjt2$id
U="$top_srcdir/tests/users.sh"
HJ_CLEANUP+=("'$U' del $U1 $U2 >/dev/null 2>&1")
D=$HJ_TMP/ssh
mkdir -p "$D/home"
for u in $U1 $U2; do
	"$U" useradd "$u" -M -s "$HS" -d "$D/home" >/dev/null ||
		bail_out "useradd $u"
	usermod -p '*' "$u"
done
make_rootfs "$HJ_TMP/r1" web1
rootfs_add_user "$HJ_TMP/r1" "$U1" /
ct_start web1 web1 "$HJ_TMP/r1" || bail_out "container web1"
I1=$CT_INIT
cg_create stopped
cat >>"$CONF" <<EOF
# deb-e2e.sh
$U1	$HJ_RUN/web1
$U2	$HJ_RUN/stopped	name=stopped-$id
EOF

# -- the private sshd: its PAM service names the installed module
# shellcheck disable=SC2034 # sshd_start writes it into the PAM service
MODULE=pam_hijack.so
sshd_start "$D" $U1 $U2

is "ssh: hostname is the container's" "$(s $U1 hostname 2>&1)" web1
for ns in mnt uts ipc net pid cgroup; do
	is "ssh: $ns namespace is the container's" "$(s $U1 readlink /proc/self/ns/$ns 2>&1)" "$(ns_of "$I1" $ns)"
done
is "ssh: /proc/self/cgroup is the container's root on every hierarchy" \
	"$(s $U1 cat /proc/self/cgroup 2>&1 | grep -vc ':/$')" 0
is "ssh: / is the container's root" "$(s $U1 cat /etc/hijack-marker 2>&1)" "container-rootfs web1"
is "ssh: the user is who logged in" "$(s $U1 id -u 2>&1)" "$(id -u $U1)"

# a session seen from the host: the installed module in sshd, the
# installed shell waiting on the host, the command in the container
s $U1 'exec sleep 30' &
bg=$!
parent="" inner="" mon=""
for _ in $(seq 200); do
	parent=$(pgrep -u "$(id -u $U1)" -f -- '--wait-for-child' | head -n1)
	inner=$(pgrep -x sleep | while read -r p; do
		[ "$(ns_of "$p" pid)" = "$(ns_of "$I1" pid)" ] && [ "$p" != "$I1" ] && echo "$p"; done | head -n1)
	[ -n "$parent" ] && [ -n "$inner" ] && break
	sleep 0.05
done
if [ -n "$parent" ] && [ -n "$inner" ]; then
	is "the session's waiting parent on the host is the installed waiter" \
		"$(readlink "/proc/$parent/exe")" /usr/libexec/hijack/hijack-shell-wait
	is "the session's command sits in the container's cgroups (host view)" \
		"$(cat "/proc/$inner/cgroup")" "$(cat "/proc/$I1/cgroup")"
	# sshd's privileged session process ran the PAM stack: it maps the
	# module file that the package installed (same inode)
	ino=$(stat -L -c %i "$MOD")
	mon=$(for p in $(pgrep -P "$SSHD"); do
		awk -v i="$ino" '$6 ~ /security\/pam_hijack\.so$/ && $5 == i { print FILENAME; exit }' "/proc/$p/maps"
	done)
	isnt "sshd's session process maps the installed $MOD" "$mon" ""
else
	not_ok "found the session's processes (shell '$parent', command '$inner')"
fi
kill "$bg" 2>/dev/null
wait "$bg" 2>/dev/null

out=$(s $U2 hostname 2>&1)
rc=$?
isnt "a user of a stopped container is refused" "$rc" 0
isnt "and never reaches a shell" "$out" "$(hostname)"
# pam_unix lets the user through account management: the refusal is the
# module's (its message goes to syslog, which this machine may not have)
like "by the account stack (the installed module)" "$(cat "$D/sshd.log")" \
	"Access denied for user $U2 by PAM account configuration"

# -- remove: the programs and the /etc/shells entry go, the admin's
# hijack.conf stays
kill "$SSHD" 2>/dev/null
wait "$SSHD" 2>/dev/null
"${APT[@]}" remove $PKGS >"$HJ_TMP/remove.log" 2>&1
rc=$?
is "apt-get remove libpam-hijack hijack succeeds" "$rc" 0
[ $rc = 0 ] || sed 's/^/# /' "$HJ_TMP/remove.log" | tail -20
for p in $PKGS; do
	is "$p keeps only its configuration" "$(pkg_state "$p")" config-files
done
check "remove: $HS is gone" test ! -e "$HS"
check "remove: $MOD is gone" test ! -e "$MOD"
check "remove: /etc/shells no longer lists $HS" bash -c "! grep -qx '$HS' /etc/shells"
check "remove: $CONF with the test's rules stays" grep -q '^# deb-e2e.sh$' "$CONF"

# -- purge
"${APT[@]}" purge $PKGS >"$HJ_TMP/purge.log" 2>&1
rc=$?
is "apt-get purge libpam-hijack hijack succeeds" "$rc" 0
[ $rc = 0 ] || sed 's/^/# /' "$HJ_TMP/purge.log" | tail -20
for p in $PKGS; do
	like "$p is gone from dpkg's database" "$(pkg_state "$p")" "^(not-installed)?$"
done
left=()
while read -r type path; do
	[ "$type" = d ] && continue
	[ -e "$path" ] || [ -L "$path" ] && left+=("$path")
done <<<"$PATHS"
for d in "${NEWDIRS[@]}"; do [ -e "$d" ] && left+=("$d/"); done
is "no file or directory of the packages is left" "${left[*]}" ""
is "no $CONF (nor a .dpkg-* copy)" "$(ls -d /etc/security/hijack.conf* 2>/dev/null)" ""
check "/etc/shells does not list $HS" bash -c "! grep -qx '$HS' /etc/shells"
snapshot >"$HJ_TMP/after"
is "/etc/shells, /etc/pam.d/common-*, /var/lib/pam, dpkg's info files are as before" \
	"$(diff "$HJ_TMP/before" "$HJ_TMP/after" | tr '\n' ' ')" ""
done_testing
