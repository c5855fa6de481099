#!/bin/sh
# third_party/fyne is Fyne, as published, with Parley's patch (third_party/fyne.patch) on top;
# go.mod's replace directive builds the app with it. This script is the only way it changes.
#
#   third_party/fyne.sh check   fails unless third_party/fyne is exactly the published module
#                               (its checksum pinned below, and verified by go against the
#                               checksum database) less the pruned files, plus the patch
#   third_party/fyne.sh sync    rebuilds third_party/fyne that way (after editing the patch, or
#                               with VERSION and SUM changed for a new Fyne)
#   third_party/fyne.sh diff    prints the patch again from third_party/fyne (after editing it)
#   third_party/fyne.sh test    runs Fyne's own tests of the packages the patch changes, on the
#                               published module (tests included) plus the patch; the GLFW
#                               driver's are left out, since they open real windows
#
# Pruned: tests, test data, the fyne commands (cmd/) and the README's images (img/).
set -eu

VERSION=v2.8.1
SUM=h1:EztGuE2W3Qhd0cWVmU+h5rkzNezUD1To6UqsoLQYUIM=

root=$(cd "$(dirname "$0")/.." && pwd)
fork="$root/third_party/fyne"
patchfile="$root/third_party/fyne.patch"
go=${GO:-go}
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The published module, outside Parley's module so that go.mod's replace does not apply, and
# into a module cache of its own, so that what is compared is freshly unpacked from a download
# that go checked against the checksum database (a copy already in the shared cache could have
# been changed since).
info=$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod GOMODCACHE="$tmp/modcache" "$go" mod download -json "fyne.io/fyne/v2@$VERSION") || {
	echo "third_party/fyne.sh: could not download fyne.io/fyne/v2@$VERSION through the Go module proxy: check the network or GOPROXY." >&2
	exit 1
}
dir=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
sum=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",*$/\1/p')
if [ "$sum" != "$SUM" ]; then
	echo "third_party/fyne.sh: fyne.io/fyne/v2@$VERSION has checksum $sum, not the pinned $SUM: do not use it." >&2
	exit 1
fi

mkdir "$tmp/pristine"
(cd "$dir" && find . -type f ! -name '*_test.go' ! -path '*/testdata/*' ! -path './cmd/*' ! -path './img/*' ! -path './.github/*' -print0 |
	tar --null -T - -cf -) | tar -C "$tmp/pristine" -xf -
chmod -R u+w "$tmp/pristine"

case "${1:-}" in
check)
	cp -R "$tmp/pristine" "$tmp/patched"
	(cd "$tmp/patched" && patch -p1 --quiet --no-backup-if-mismatch <"$patchfile")
	if ! diff -r "$tmp/patched" "$fork" >"$tmp/diff"; then
		cat "$tmp/diff" >&2
		echo "third_party/fyne is not Fyne $VERSION plus third_party/fyne.patch (above, what differs). Change Fyne only through the patch: edit third_party/fyne, run third_party/fyne.sh diff, then third_party/fyne.sh sync." >&2
		exit 1
	fi
	echo "third_party/fyne is Fyne $VERSION plus third_party/fyne.patch."
	;;
sync)
	cp -R "$tmp/pristine" "$tmp/patched"
	(cd "$tmp/patched" && patch -p1 --quiet --no-backup-if-mismatch <"$patchfile")
	# Beside the old one first, so that an interruption never leaves half a fork.
	rm -rf "$fork.new" "$fork.old"
	cp -R "$tmp/patched" "$fork.new"
	mv "$fork" "$fork.old"
	mv "$fork.new" "$fork"
	rm -rf "$fork.old"
	echo "third_party/fyne is now Fyne $VERSION plus third_party/fyne.patch."
	;;
test)
	cp -R "$dir" "$tmp/full"
	chmod -R u+w "$tmp/full"
	(cd "$tmp/full" && patch -p1 --quiet --no-backup-if-mismatch <"$patchfile")
	pkgs=$(sed -n 's|^+++ b/\(.*\)/[^/]*$|./\1/|p' "$patchfile" | sort -u | grep -v '^./internal/driver/glfw/$')
	echo "Fyne's tests of the patched packages:" $pkgs
	# shellcheck disable=SC2086 # one argument per package
	(cd "$tmp/full" && GOWORK=off GOFLAGS=-mod=mod "$go" test -count=1 $pkgs)
	;;
diff)
	# diff exits 1 when the trees differ, which is the point here.
	# (without the files' times, so that the patch changes only when the code does; editors'
	# and patch's leftovers are not part of it)
	cp -R "$fork" "$tmp/b"
	mv "$tmp/pristine" "$tmp/a"
	find "$tmp/b" \( -name '*~' -o -name '*.orig' -o -name '*.rej' -o -name '.*.swp' \) -exec rm -f {} +
	rc=0
	(cd "$tmp" && diff -ruN a b) >"$tmp/patch" || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "third_party/fyne.sh: diff failed (exit $rc); third_party/fyne.patch is unchanged." >&2
		exit 1
	fi
	sed -E 's/^((---|\+\+\+) [^	]*)	.*$/\1/' "$tmp/patch" >"$patchfile"
	echo "third_party/fyne.patch now holds what third_party/fyne changes in Fyne $VERSION."
	;;
*)
	echo "usage: third_party/fyne.sh check|sync|diff|test" >&2
	exit 2
	;;
esac
