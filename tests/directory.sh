#!/bin/bash
# Groups from a directory: a real OpenLDAP (slapd on loopback) and a real
# SSSD (sssd-ldap) started by this test, in a mount namespace of its own
# (its nsswitch.conf asks sss; /etc/sssd and /var/lib/sss are its own),
# a real sshd and pam_hijack.  Users and groups that exist only in the
# directory land in the container a group rule names; then the
# directory's faults, each failing closed: slapd gone while sssd answers
# from its cache, slapd gone or silent with nothing cached, a responder
# that never answers (the lookup's deadline).  Users hjt*, cgroups
# hjtest-PID, slapd and sssd are ours and stopped on exit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
PATH=$PATH:/usr/sbin:/sbin
require_tools slapd slapadd sssd sssctl sss_cache getent ssh ssh-keygen setcap auditd ausearch
D=$HJ_TMP/dir
mkdir -p "$D"
chmod 755 "$HJ_TMP" "$D"
hj_shell_install "$D"
hj_conf_take
L=hjtd$$
"$top_srcdir/tests/users.sh" useradd "$L" -M -s "$HS" >/dev/null
HJ_CLEANUP+=("'$top_srcdir/tests/users.sh' del $L >/dev/null 2>&1")
hj_auditd "$D"

# -- the directory: people and groups the host's files do not have
BASE="dc=hj$$,dc=test"
LPORT=$(free_tcp_port)
mkdir -p "$D/ldap/db"
cat > "$D/ldap/slapd.conf" <<EOF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/nis.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile $D/ldap/slapd.pid
database mdb
maxsize 16777216
suffix "$BASE"
rootdn "cn=admin,$BASE"
rootpw secret
directory $D/ldap/db
EOF
person() { # UID NUMBER
	printf 'dn: uid=%s,ou=people,%s\nobjectClass: inetOrgPerson\nobjectClass: posixAccount\nuid: %s\ncn: %s\nsn: %s\nuidNumber: %s\ngidNumber: %s\nhomeDirectory: /home/%s\nloginShell: %s\n\n' \
		"$1" "$BASE" "$1" "$1" "$1" "$2" "$2" "$1" "$HS"
}
group() { # NAME NUMBER MEMBER...
	printf 'dn: cn=%s,ou=groups,%s\nobjectClass: posixGroup\ncn: %s\ngidNumber: %s\n' \
		"$1" "$BASE" "$1" "$2"
	shift 2
	printf 'memberUid: %s\n' "$@"
	echo
}
{
	printf 'dn: %s\nobjectClass: dcObject\nobjectClass: organization\no: hijack tests\ndc: hj%s\n\n' "$BASE" "$$"
	printf 'dn: ou=people,%s\nobjectClass: organizationalUnit\nou: people\n\n' "$BASE"
	printf 'dn: ou=groups,%s\nobjectClass: organizationalUnit\nou: groups\n\n' "$BASE"
	person hjtldap1 72001
	person hjtldap2 72002
	group hjtldap1 72001 hjtldap1
	group hjtldap2 72002 hjtldap2
	group hjtdevs 72100 hjtldap1 "$L"
	group hjtslow 72200 "$L"
} > "$D/ldap/base.ldif"
slapadd -q -f "$D/ldap/slapd.conf" -l "$D/ldap/base.ldif" ||
	bail_out "slapadd failed"
slapd_start() {
	# -d: in the foreground, ours to stop
	slapd -f "$D/ldap/slapd.conf" -h "ldap://127.0.0.1:$LPORT/" -d 0 \
		>>"$D/ldap/slapd.log" 2>&1 &
	SLAPD=$!
	HJ_PIDS+=("$SLAPD")
	wait_tcp_listen "" "127.0.0.1:$LPORT" || bail_out "slapd does not listen"
}
slapd_start

# -- SSSD, ours: its configuration, databases, sockets and memory caches
# in this mount namespace only, and NSS asking it for users and groups
mkdir -p "$D/sssd/conf.d"
# README's sssd.conf, pointed at our slapd; then timeouts short enough
# for a test, in its domain section (the last)
readme_block 'posixGroups:$' |
	sed -e "s|^ldap_uri = .*|ldap_uri = ldap://127.0.0.1:$LPORT|" \
		-e "s|^ldap_search_base = .*|ldap_search_base = $BASE|" > "$D/sssd/sssd.conf"
grep -q '^id_provider = ldap$' "$D/sssd/sssd.conf" || bail_out "no sssd.conf in README.md"
cat >> "$D/sssd/sssd.conf" <<EOF
ldap_network_timeout = 3
ldap_opt_timeout = 3
ldap_search_timeout = 3
# back online within a second or two of slapd coming back
offline_timeout = 1
offline_timeout_max = 2
offline_timeout_random_offset = 0
EOF
chmod 600 "$D/sssd/sssd.conf"
mount --bind "$D/sssd" /etc/sssd || bail_out "cannot mount over /etc/sssd"
mount -t tmpfs -o mode=755 hjtest-sss /var/lib/sss ||
	bail_out "cannot mount over /var/lib/sss"
sss_dirs() {
	mkdir -p /var/lib/sss/{db,mc,pubconf/krb5.include.d,gpo_cache,keytabs,deskprofile,secrets}
	mkdir -p -m 700 /var/lib/sss/pipes/private
	chmod 755 /var/lib/sss/pipes
}
sss_dirs
mkdir -p "$D/sssd-log"
# README's two lines in place of the machine's
readme_block 'in `/etc/nsswitch.conf`:' > "$D/nss.lines"
[ "$(grep -c '^passwd:\|^group:' "$D/nss.lines")" = 2 ] || bail_out "no nsswitch.conf lines in README.md"
awk -v f="$D/nss.lines" '
	BEGIN { while ((getline l < f) > 0) { split(l, w, ":"); set[w[1]] = l } }
	{ split($0, w, ":"); if (w[1] in set) print set[w[1]]; else print }' \
	/etc/nsswitch.conf > "$D/nsswitch.conf"
chmod 644 "$D/nsswitch.conf"
mount --bind "$D/nsswitch.conf" /etc/nsswitch.conf ||
	bail_out "cannot mount over /etc/nsswitch.conf"
sssd_start() {
	sssd -i --logger=stderr >>"$D/sssd-log/sssd.log" 2>&1 &
	SSSD=$!
	HJ_PIDS+=("$SSSD")
}
sssd_stop() {
	kill -TERM "$SSSD" 2>/dev/null
	wait "$SSSD" 2>/dev/null
}
HJ_CLEANUP=("kill -TERM \$SSSD 2>/dev/null; wait \$SSSD 2>/dev/null" "${HJ_CLEANUP[@]}")
sssd_start
for i in $(seq 100); do
	getent passwd hjtldap1 >/dev/null 2>&1 && break
	sleep 0.2
done

is "NSS: hjtldap1 comes from the directory (sss)" \
	"$(getent -s sss passwd hjtldap1 | cut -d: -f1,3,4)" hjtldap1:72001:72001
is "... the host's files do not have it" "$(getent -s files passwd hjtldap1)" ""
like "NSS: group hjtdevs, directory only, lists a directory user and a local one" \
	"$(getent -s sss group hjtdevs)" "^hjtdevs:\*?:72100:hjtldap1,$L$"

# -- a container, the rules, sshd
ct_start dir1 dirhost || bail_out "no container"
R=$HJ_TMP/ct-dir1
rootfs_add_user "$R" hjtldap1
rootfs_add_user "$R" "$L"
# the groups inside are the container's own: ctgrp, not the directory's
echo "ctgrp:x:5000:hjtldap1,$L" >> "$R/etc/group"
printf '@hjtdevs\t%s\tname=dir1\n*\t-\n' "$HJ_RUN/dir1" > "$CONF"
chmod 644 "$CONF"
sshd_start "$D" hjtldap1 hjtldap2 "$L"
myhost=$(hostname)

is "a directory user in a directory group lands in the mapped container" \
	"$(s hjtldap1 hostname 2>/dev/null)" dirhost
is "... with the container's groups for it, not the directory's" \
	"$(s hjtldap1 id -G 2>/dev/null)" "72001 5000"
is "a local user in a directory group lands there too" "$(s "$L" hostname 2>/dev/null)" dirhost
is "a directory user in no mapped group follows the rules after it ('* -')" \
	"$(s hjtldap2 hostname 2>&1 | grep -v '^Could not chdir')" "$myhost"
out=$(hjcheck hjtldap1 2>&1)
like "hijack check: the rule of the directory group" "$out" "^rule: +$CONF:1$"
like "... and where the user's groups come from" "$out" "^groups: +hjtldap1 \(sss\), hjtdevs \(sss\)$"
like "hijack check of the local user: its own group from files, the directory's from sss" \
	"$(hjcheck "$L" 2>&1)" "^groups: +$L \(files\), hjtdevs \(sss, lists the user\)$"

# hijack check says whether sssd's answer was fetched for it: entries
# marked expired (sss_cache) are fetched again while slapd answers
sss_cache -G >/dev/null 2>&1
like "hijack check, slapd up, cache expired: the group was fetched from the directory" \
	"$(hjcheck hjtldap1 2>&1)" "^sss cache: +hjtdevs: fetched from the directory for this check \(cached until "
sleep 2
like "... asked again: sssd's cached answer, and its age" \
	"$(hjcheck hjtldap1 2>&1)" "^sss cache: +hjtdevs: sssd's cached answer, fetched [0-9]+ s ago \(cached until "

# -- slapd gone, sssd answers from its cache (entry_cache_timeout 600 s)
kill -TERM "$SLAPD"; wait "$SLAPD" 2>/dev/null
is "slapd gone, cached by sssd: the cached membership is used" \
	"$(s hjtldap1 hostname 2>/dev/null)" dirhost
is "... the local user too" "$(s "$L" hostname 2>/dev/null)" dirhost
sss_cache -G >/dev/null 2>&1
is "slapd gone, cache expired: the login still lands, as sssd answers from its cache" \
	"$(s hjtldap1 hostname 2>/dev/null)" dirhost
out=$(hjcheck hjtldap1 2>&1)
like "... and hijack check says the answer is sssd's expired cache" "$out" \
	"^sss cache: +hjtdevs: sssd's cached answer, fetched [0-9]+ s ago and expired: the directory did not answer$"
like "... for the local user's directory group too" "$(hjcheck "$L" 2>&1)" \
	"^sss cache: +hjtdevs: sssd's cached answer, fetched [0-9]+ s ago and expired"

# -- slapd gone and nothing cached: sssd started again without its
# database (as an admin clears it); the new sssd marks the old memory
# caches recycled, so no process answers from them either
sssd_fresh() {
	local t
	sssd_stop
	rm -rf /var/lib/sss/db/*
	t=$(date +%s)
	sssd_start
	# ready once its responder has made the memory caches anew
	for i in $(seq 100); do
		[ -n "$(pgrep -P "$SSSD" -x sssd_nss)" ] &&
			[ "$(stat -c %Y /var/lib/sss/mc/group 2>/dev/null || echo 0)" -ge "$t" ] && break
		sleep 0.2
	done
}
sssd_fresh
out=$(s "$L" hostname 2>&1); rc=$?
isnt "slapd gone, nothing cached: a local user that reaches the group rule is refused" "$rc" 0
is "... never the host ('* -' after the rule)" "$(grep -c "^$myhost$" <<<"$out")" 0
rec=$(ausearch --input-logs -m VIRT_CONTROL -ts "$TS_DAY" "$TS_TIME" 2>/dev/null | grep -E "user=\"?$L\"? " | tail -n1)
like "... audited: op=deny reason=directory" "$rec" 'op=deny.*reason="?directory'
out=$(s hjtldap1 hostname 2>&1); rc=$?
isnt "... a directory user, unknown now, is refused by sshd" "$rc" 0
is "... never the host" "$(grep -c "^$myhost$" <<<"$out")" 0

# -- slapd silent (stopped while listening): sssd gives up on it (its
# timeouts, 3 s) and, with nothing cached, knows no group
slapd_start
kill -STOP "$SLAPD"
sssd_fresh
out=$(s "$L" hostname 2>&1); rc=$?
isnt "slapd silent, nothing cached: refused" "$rc" 0
is "... never the host" "$(grep -c "^$myhost$" <<<"$out")" 0
kill -CONT "$SLAPD"

# -- a responder that never answers: the lookup's deadline (15 s).  Asked
# through the PAM stack itself (pam_hijack's account step as sshd runs
# it): sshd's own lookups before PAM (initgroups for public key
# authentication) would wait for the responder as long as LoginGraceTime
for i in $(seq 60); do
	getent -s sss group hjtdevs >/dev/null && break
	sleep 0.5
done
is "slapd back: the local user lands again" "$(s "$L" hostname 2>/dev/null)" dirhost
NSSR=$(pgrep -P "$SSSD" -x sssd_nss)
printf '@hjtslow\t%s\tname=dir1\n*\t-\n' "$HJ_RUN/dir1" > "$CONF"
kill -STOP $NSSR
t0=$(date +%s)
out=$(timeout 90 pamtester "$SVC" "$L" acct_mgmt 2>&1); rc=$?
t=$(($(date +%s) - t0))
kill -CONT $NSSR
isnt "sssd's responder stopped: pam_hijack refuses the account" "$rc" 0
check "... at the lookup's deadline (${t}s)" test "$t" -ge 14 -a "$t" -le 40
like "... and says so" "$out" "the user and group directory did not answer"
rec=$(ausearch --input-logs -m VIRT_CONTROL -ts "$TS_DAY" "$TS_TIME" 2>/dev/null | grep -E "user=\"?$L\"? " | tail -n1)
like "... audited: op=deny reason=directory" "$rec" 'op=deny.*reason="?directory'
is "... and with the responder back, the group rule maps the user" \
	"$(pamtester "$SVC" "$L" acct_mgmt >/dev/null 2>&1; echo $?)" 0

done_testing
