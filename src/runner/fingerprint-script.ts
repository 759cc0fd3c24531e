/**
 * FINGERPRINT_SCRIPT is a POSIX shell script that prints what parseFingerprint
 * needs as `key=value` lines. It runs wherever the benchmark runs (locally,
 * through ssh, through `adb shell`), so it uses only sh, grep, sed, head and
 * uname, never fails on a missing file or tool, and prints a key only when
 * its source exists: an absent key means "cannot tell", an empty value means
 * "exists and is empty". Values are the first line of their source; the
 * parser does the interpretation so that it can be tested on captured output.
 */
export const FINGERPRINT_SCRIPT = String.raw`
# benchbot fingerprint: key=value lines, see src/runner/fingerprint-script.ts
PATH="$PATH:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
p() { printf '%s=%s\n' "$1" "$(printf '%s' "$2" | head -n 1)"; }
f() { [ -r "$2" ] && p "$1" "$(head -n 1 "$2" 2>/dev/null)"; }
c() { k=$1; shift; v=$("$@" 2>/dev/null | head -n 1); [ -n "$v" ] && p "$k" "$v"; }
cpu=/sys/devices/system/cpu
p format benchbot-fingerprint-1
if [ -r /proc/cpuinfo ]; then
  for field in 'model name' 'Hardware' 'Processor' 'cpu model' 'cpu'; do
    v=$(grep -m 1 "^$field[[:space:]]*:" /proc/cpuinfo 2>/dev/null | sed 's/^[^:]*:[[:space:]]*//')
    [ -n "$v" ] && p "cpuinfo.$field" "$v"
  done
  for field in 'CPU implementer' 'CPU part'; do
    v=$(grep -m 1 "^$field[[:space:]]*:" /proc/cpuinfo 2>/dev/null | sed 's/^[^:]*:[[:space:]]*//')
    [ -n "$v" ] && p "cpuinfo.$field" "$v"
  done
  p cpuinfo.processors "$(grep -c '^processor' /proc/cpuinfo 2>/dev/null)"
  grep -q '^flags' /proc/cpuinfo 2>/dev/null && p cpuinfo.flags_seen yes
  grep -q '^flags.*[[:space:]]hypervisor\([[:space:]]\|$\)' /proc/cpuinfo 2>/dev/null && p cpuinfo.hypervisor yes
fi
c nproc nproc
c online getconf _NPROCESSORS_ONLN
f governor "$cpu/cpu0/cpufreq/scaling_governor"
f driver "$cpu/cpu0/cpufreq/scaling_driver"
f no_turbo "$cpu/intel_pstate/no_turbo"
f boost "$cpu/cpufreq/boost"
f smt_active "$cpu/smt/active"
f smt_control "$cpu/smt/control"
f isolated "$cpu/isolated"
c kernel uname -r
c arch uname -m
c os uname -s
[ -r /proc/meminfo ] && p meminfo.MemTotal "$(grep -m 1 '^MemTotal:' /proc/meminfo | sed 's/^MemTotal:[[:space:]]*//')"
f loadavg /proc/loadavg
[ -e /.dockerenv ] && p dockerenv yes
[ -e /run/.containerenv ] && p containerenv yes
c cgroup1 grep -m 1 -E 'docker|kubepods|containerd|libpod|lxc|garden' /proc/1/cgroup
if command -v systemd-detect-virt >/dev/null 2>&1; then
  p detect_virt "$(systemd-detect-virt 2>/dev/null)"
fi
f dmi.product_name /sys/class/dmi/id/product_name
f dmi.sys_vendor /sys/class/dmi/id/sys_vendor
c hostname hostname || c hostname uname -n
if [ ! -r /proc/cpuinfo ] && command -v sysctl >/dev/null 2>&1; then
  # macOS and the BSDs
  c sysctl.brand sysctl -n machdep.cpu.brand_string
  c sysctl.ncpu sysctl -n hw.ncpu
  c sysctl.memsize sysctl -n hw.memsize
  c sysctl.loadavg sysctl -n vm.loadavg
fi
if command -v getprop >/dev/null 2>&1; then
  # Android
  c android.model getprop ro.product.model
  c android.soc getprop ro.soc.model
  c android.release getprop ro.build.version.release
fi
for tool in gcc clang go rustc node python3 java; do
  command -v "$tool" >/dev/null 2>&1 || continue
  case "$tool" in
    go) v=$(go version 2>&1 | head -n 1) ;;
    java) v=$(java -version 2>&1 | head -n 1) ;;
    *) v=$("$tool" --version 2>&1 | head -n 1) ;;
  esac
  p "tool.$tool" "$v"
done
exit 0
`;
