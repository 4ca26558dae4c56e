# Sourced by the race loops (tests/rpm/races.sh, tests/dkms/race.sh): each
# loop logs one line per command, "WHAT STATUS", and the commands' output
# in LOG.out.
# race_show_failures LOG...: the failed commands of the logs, then the error
# lines of their output (not the warnings of every run that went well);
# nothing when none failed.
race_show_failures() {
	local f
	grep -qv ' 0$' "$@" || return 0
	grep -v ' 0$' "$@" | head -n 5 | sed 's/^/#   /'
	for f; do cat "$f.out"; done | grep -iv "^rpm: \|^warning: " | head -n 20 | sed 's/^/#   /'
}
