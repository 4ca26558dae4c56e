/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The built-in policy's bytes: the default policy compiled in, as YAML.
 * Loading it (tg_policy_builtin(), the sections a policy file leaves out)
 * is policy.c's.
 */
#include "policy_internal.h"

/*
 * Built-in kernel knowledge and rules: what a policy file gets for every
 * section it leaves out, and the policy of tg_policy_builtin().  Kept equal
 * to policy/default.yaml (the unit test compares the two dumps).
 */
const char tg_policy_builtin_yaml[] =
	"taintguard-policy: 1\n"
	"kernel:\n"
	"  gpl_compatible_licenses:\n"
	"    - kernels: \">= 2.6.0\"\n"
	"      strings: [\"GPL\", \"GPL v2\", \"GPL and additional rights\",\n"
	"                \"Dual BSD/GPL\", \"Dual MIT/GPL\", \"Dual MPL/GPL\"]\n"
	"  forced_taint:\n"
	"    - name: ndiswrapper\n"
	"      flag: P\n"
	"      scope: kernel\n"
	"      kernels: \">= 2.6.16\"\n"
	"      reason: \"ndiswrapper is under GPL by itself, but loads proprietary modules\"\n"
	"    - name: driverloader\n"
	"      flag: P\n"
	"      scope: module\n"
	"      kernels: \">= 2.6.16\"\n"
	"      reason: \"driverloader was caught wrongly pretending to be under GPL\"\n"
	"    - name: lve\n"
	"      flag: P\n"
	"      scope: module\n"
	"      kernels: \">= 3.5\"\n"
	"      reason: \"lve claims to be GPL but upstream won't provide source\"\n"
	"  advisory:\n"
	"    - names: [gxtp7380, ite_8291, ite_8291_lb, ite_8297, ite_829x, stk8321,\n"
	"              tuxedo_compatibility_check, tuxedo_io, tuxedo_nb02_nvidia_power_ctrl,\n"
	"              tuxedo_nb04_keyboard, tuxedo_nb04_wmi_ab, tuxedo_nb04_wmi_bs,\n"
	"              tuxedo_nb04_sensors, tuxedo_nb04_power_profiles,\n"
	"              tuxedo_nb04_kbd_backlight, tuxedo_nb05_keyboard,\n"
	"              tuxedo_nb05_kbd_backlight, tuxedo_nb05_power_profiles,\n"
	"              tuxedo_nb05_ec, tuxedo_nb05_sensors, tuxedo_nb05_fan_control,\n"
	"              tuxi_acpi, tuxedo_tuxi_fan_control, clevo_wmi, tuxedo_keyboard,\n"
	"              clevo_acpi, uniwill_wmi]\n"
	"      status: resolved\n"
	"      flag: P\n"
	"      scope: module\n"
	"      reason: \"proposed for module_license_offenders[] in 2024-11 (GPLv3 code declared as GPL); never merged, TUXEDO relicensed\"\n"
	"trusted_keys: []\n"
	"trusted_certificates: []\n"
	"rules:\n"
	"  - name: unreadable\n"
	"    when: {error: true}\n"
	"    action: deny\n"
	"  - name: refused-by-kernel\n"
	"    when: {refused: true}\n"
	"    action: deny\n"
	"  - name: forced-taint-list\n"
	"    when: {forced_taint: true}\n"
	"    action: deny\n"
	"  - name: proprietary\n"
	"    when: {taint: P}\n"
	"    action: mark\n"
	"  - name: incomplete-check\n"
	"    when: {incomplete: true}\n"
	"    action: mark\n"
	"default: allow\n"
	"guard:\n"
	"  action: deny\n"
	"refuse_scope: package\n"
	"exceptions: []\n";
const size_t tg_policy_builtin_yaml_len = sizeof(tg_policy_builtin_yaml) - 1;
