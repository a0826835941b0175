#!/bin/bash
# temporary: device checks for the one-place-per-fact change (not committed). devrun.sh tests|sanitize
set -u
o=$OUT/r; mkdir -p $o
new=build/runner/sgemm_runner
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; $new --list | head -2; } > $o/device.txt 2>&1
if [[ $1 == tests ]]; then
  (time ./build/tests/sgemm_tests) > $o/gtest.log 2>&1; echo "gtest rc=$?" >> $o/summary.txt
  grep -E '^\[  (PASSED|FAILED)  \]|tests ran|FAILED' $o/gtest.log | head -20 >> $o/summary.txt
  bash tests/test_runner_cli.sh $new > $o/runner_cli.log 2>&1; echo "runner_cli rc=$? $(tail -1 $o/runner_cli.log)" >> $o/summary.txt
  old=build-old/sgemm_runner_53fe5fd
  S="--size 4096,4096,4096 --size 8192,8192,8192 --size 2048,2048,2048 --size 4095,4097,4093 --size 1024,1024,8192"
  for r in 1 2 3; do
    $old --kernel 9,10,11,12 $S --json $o/ab-old-$r.json > $o/ab-old-$r.txt 2>&1
    $new --kernel 9,10,11,12 $S --json $o/ab-new-$r.json > $o/ab-new-$r.txt 2>&1
  done
  echo "ab done" >> $o/summary.txt
else
  i=0
  for ks in 0,1,2,3,4 5,6,7,8 9,10 11,12; do
    i=$((i+1))
    timeout 560 scripts/sanitize.sh --runner $new --kernels $ks --log-dir $o/san$i > $o/sanitize$i.log 2>&1 &
  done
  wait
  for i in 1 2 3 4; do echo "sanitize$i: $(grep -E 'sanitize:' $o/sanitize$i.log | tail -1)" >> $o/summary.txt; done
fi
cd $OUT && tar czf r-$1.tgz r && rm -rf r
