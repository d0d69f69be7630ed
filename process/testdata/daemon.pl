# daemon.pl PIDFILE: a daemon as nginx, postgres and sshd start one: it
# forks twice, the first child leaving its session, so that the daemon has
# no parent in the command's tree and no process group or session of it;
# then it sets its process title, which overwrites the memory that
# /proc/PID/environ reads, and with it the environment mark. It writes its
# PID to PIDFILE and sleeps.
use POSIX qw(setsid);
exit 0 if fork();
setsid() or die "setsid: $!";
exit 0 if fork();
$0 = "postgres: checkpointer";
open(STDIN, "<", "/dev/null");
open(STDOUT, ">", "/dev/null");
open(STDERR, ">", "/dev/null");
open(my $f, ">", "$ARGV[0].tmp") or die;
print $f "$$\n";
close $f;
rename("$ARGV[0].tmp", $ARGV[0]);
sleep 30;
