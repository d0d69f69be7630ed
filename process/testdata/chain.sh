# chain.sh N PIDFILE: writes its PID to PIDFILE, then execs itself N times,
# as a daemon's launcher does through nohup, nice, env and sh -c, and
# sleeps. During each exec there is a moment in which /proc/PID/environ
# reads empty: a sweep reading it then does not see the mark.
if [ $# -eq 2 ]; then
	echo $$ >"$2"
fi
if [ "$1" -gt 0 ]; then
	exec sh "$0" $(($1 - 1)) "$2" again
fi
exec sleep 30
