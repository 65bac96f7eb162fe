# Shell helpers of the A/B scripts (revisions.sh, header_cost.sh): sourced, not run.

# A free loopback port.
free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# CPU time a process has used so far (user + system), in clock ticks.
cpu_ticks() { # pid
  awk '{print $14 + $15}' "/proc/$1/stat"
}

# µs of CPU per request, from ticks spent and requests served.
us_per_request() { # ticks requests
  awk -v t="$1" -v n="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", t / hz * 1e6 / n}'
}

# The median of the numbers on stdin, one per line.
median() {
  sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'
}
