# SPDX-License-Identifier: GPL-2.0
# Shared by the scripts: where things are, which kernels we test.
# Sourced, not run.

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${PAGETRAIL_BUILD:-$TOP/build}
CACHE=${PAGETRAIL_CACHE:-/var/tmp/pagetrail}

# The newest installed Debian 6.1 or 6.12 kernel that has headers; "rt":
# the PREEMPT_RT 6.12 one.
stock_kernel()
{
	local series=$1 v
	if [ "$series" = rt ]; then
		v=$(ls -d /lib/modules/6.12.*-rt-amd64/build 2>/dev/null)
	else
		v=$(ls -d /lib/modules/"$series".*/build 2>/dev/null | grep -v -- '-rt-')
	fi
	echo "$v" | sed 's|/lib/modules/||; s|/build||' | sort -V | tail -n1
}

# kernel_image NAME: bzImage for a stock version, "debug" (the sanitizer
# kernel of make check: linux-source-6.12, build-testkernel) or "debug7"
# (the same fragments plus linux7's on Debian's newest 7.x:
# build-testkernel --source 7) or "7" (that 7.x tree without the sanitizers:
# build-testkernel --source 7 --plain) or "deb7" (Debian's own built 7.x
# kernel: scripts/debian-kernel).
kernel_image()
{
	case $1 in
	deb7) echo "$CACHE/deb7/vmlinuz" ;;
	debug) echo "$CACHE/kb-debug/arch/x86/boot/bzImage" ;;
	debug7) echo "$CACHE/kb-debug-7.x/arch/x86/boot/bzImage" ;;
	7) echo "$CACHE/kb-7.x/arch/x86/boot/bzImage" ;;
	*) echo "/boot/vmlinuz-$1" ;;
	esac
}

kernel_kdir()
{
	case $1 in
	debug) echo "$CACHE/kb-debug" ;;
	debug7) echo "$CACHE/kb-debug-7.x" ;;
	7) echo "$CACHE/kb-7.x" ;;
	deb7) echo "$CACHE/deb7/build" ;;
	*) echo "/lib/modules/$1/build" ;;
	esac
}

# kernel_moddir NAME: the kernel's own lib/modules/RELEASE (veth,
# virtio_net for the page_pool scenarios); nothing for the kernels built
# here, whose modules are not installed anywhere.
kernel_moddir()
{
	case $1 in
	deb7) echo "$CACHE/deb7/modules" ;;
	debug | debug7 | 7) ;;
	*) echo "/lib/modules/$1" ;;
	esac
}

# A short label per kernel for logs and TAP.
kernel_label()
{
	case $1 in
	debug) echo "debug-6.12" ;;
	debug7) echo "debug-7.x" ;;
	7) echo "7.x" ;;
	deb7) echo "7.x-debian" ;;
	*-rt-amd64) echo "6.12-rt" ;;
	6.1.*) echo "6.1" ;;
	6.12.*) echo "6.12" ;;
	*) echo "$1" ;;
	esac
}

# modules_for NAME OUTDIR: the directory whose ko/ holds pagetrail and the
# test modules built for kernel NAME. Inside make check
# (PAGETRAIL_CHECK_RUN set), the W=1 build the boots use, when it succeeded:
# the same source, flags and kernel, so building it again would only cost
# CPU. Otherwise build-modules into OUTDIR. Fails as build-modules does.
modules_for()
{
	local kernel=$1 out=$2 run=${PAGETRAIL_CHECK_RUN:-} label
	label=$(kernel_label "$kernel")
	if [ -n "$run" ] && [ -e "$run/$label-build.ok" ] && [ -d "$run/$label/ko" ]; then
		echo "$run/$label"
		return 0
	fi
	"$TOP/scripts/build-modules" "$kernel" "$out" > /dev/null || return
	echo "$out"
}
