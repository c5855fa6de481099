#!/bin/sh
# third_party/systray is fyne.io/systray (the tray icon under Fyne), as published at the version
# Fyne requires, with Parley's patch (third_party/systray.patch) on top; go.mod's replace directive
# builds the app with it. This script is the only way it changes (as third_party/fyne.sh is for
# Fyne).
#
#   third_party/systray.sh check   fails unless third_party/systray is exactly the published
#                                  module (its checksum pinned below, and verified by go against
#                                  the checksum database) less the pruned files, plus the patch
#   third_party/systray.sh sync    rebuilds third_party/systray that way (after editing the patch,
#                                  or with VERSION and SUM changed for a new systray)
#   third_party/systray.sh diff    prints the patch again from third_party/systray (after editing
#                                  it)
#
# Pruned: tests (upstream's test its menu and shortcuts, not what the patch changes; its Windows
# one does not build at this version), the example program and its images. What the patch
# changes is tested from Parley: desktop/tray's tests and the tray's end-to-end tests.
set -eu

# The version Fyne 2.8.1 requires (its go.mod), whose new API (systray.KeyModifier...) it uses.
VERSION=v1.12.3-0.20260810170012-af4e8e793ec4
SUM=h1:149/+Wa5EsLLXfyj2pdTmvnQf2VIlgCIwSjcCTHYhIo=
MODULE=fyne.io/systray

root=$(cd "$(dirname "$0")/.." && pwd)
fork="$root/third_party/systray"
patchfile="$root/third_party/systray.patch"
go=${GO:-go}
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The published module, outside Parley's module so that go.mod's replace does not apply, and
# into a module cache of its own, so that what is compared is freshly unpacked from a download
# that go checked against the checksum database.
info=$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod GOMODCACHE="$tmp/modcache" "$go" mod download -json "$MODULE@$VERSION") || {
	echo "third_party/systray.sh: could not download $MODULE@$VERSION through the Go module proxy: check the network or GOPROXY." >&2
	exit 1
}
dir=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
sum=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",*$/\1/p')
if [ "$sum" != "$SUM" ]; then
	echo "third_party/systray.sh: $MODULE@$VERSION has checksum $sum, not the pinned $SUM: do not use it." >&2
	exit 1
fi

mkdir "$tmp/pristine"
(cd "$dir" && find . -type f ! -name '*_test.go' ! -path './example/*' ! -path './.github/*' -print0 |
	tar --null -T - -cf -) | tar -C "$tmp/pristine" -xf -
chmod -R u+w "$tmp/pristine"

case "${1:-}" in
check)
	cp -R "$tmp/pristine" "$tmp/patched"
	(cd "$tmp/patched" && patch -p1 --quiet --no-backup-if-mismatch <"$patchfile")
	if ! diff -r "$tmp/patched" "$fork" >"$tmp/diff"; then
		cat "$tmp/diff" >&2
		echo "third_party/systray is not $MODULE $VERSION plus third_party/systray.patch (above, what differs). Change it only through the patch: edit third_party/systray, run third_party/systray.sh diff, then third_party/systray.sh sync." >&2
		exit 1
	fi
	echo "third_party/systray is $MODULE $VERSION plus third_party/systray.patch."
	;;
sync)
	cp -R "$tmp/pristine" "$tmp/patched"
	(cd "$tmp/patched" && patch -p1 --quiet --no-backup-if-mismatch <"$patchfile")
	# Beside the old one first, so that an interruption never leaves half a fork.
	rm -rf "$fork.new" "$fork.old"
	cp -R "$tmp/patched" "$fork.new"
	if [ -e "$fork" ]; then mv "$fork" "$fork.old"; fi
	mv "$fork.new" "$fork"
	rm -rf "$fork.old"
	echo "third_party/systray is now $MODULE $VERSION plus third_party/systray.patch."
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
		echo "third_party/systray.sh: diff failed (exit $rc); third_party/systray.patch is unchanged." >&2
		exit 1
	fi
	sed -E 's/^((---|\+\+\+) [^	]*)	.*$/\1/' "$tmp/patch" >"$patchfile"
	echo "third_party/systray.patch now holds what third_party/systray changes in $MODULE $VERSION."
	;;
*)
	echo "usage: third_party/systray.sh check|sync|diff" >&2
	exit 2
	;;
esac
