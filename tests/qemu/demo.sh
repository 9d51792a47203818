# make demo: show what cmadebug says about this board.
echo "=== cmadebug areas ($(uname -m), $(cat /proc/cmdline)) ==="
cmadebug areas
echo "=== end ==="
