#!/bin/bash
# Re-runs every probe: s2sad -> gcc -Wall -Wextra -> finite-difference driver.
# Prints a markdown table. Usage: ./run_all.sh [probe-name-substring]
cd "$(dirname "$0")"
ROOT="$(cd ../../.. && pwd)"
S2SAD="$ROOT/bin/s2sad"
CC="nice -n 10 gcc"
mkdir -p gen logs build
printf '| program | s2sad | gcc -Wall -Wextra | FD check | detail |\n|---|---|---|---|---|\n'
while IFS='|' read -r name func wrt extra; do
    [ -z "$name" ] && continue
    case "$name" in \#*) continue;; esac
    [ -n "$1" ] && [[ "$name" != *"$1"* ]] && continue
    out=gen/grad_$name.c
    rm -f "$out"
    nice -n 10 $S2SAD grad src/$name.c --func "$func" --wrt "$wrt" --target c -o "$out" $extra \
        > logs/$name.s2sad 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        msg=$(grep -m1 -E 'error|internal' logs/$name.s2sad | sed 's/|/\\|/g')
        nerr=$(grep -c -E ': error:|internal error' logs/$name.s2sad)
        printf '| %s | REFUSED (rc=%d, %d errors) | - | - | %s |\n' "$name" "$rc" "$nerr" "$msg"
        continue
    fi
    omp=""; grep -q '#pragma omp' src/$name.c && omp="-fopenmp"
    $CC -std=c99 -Wall -Wextra -O1 $omp -c "$out" -o build/grad_$name.o > logs/$name.gcc 2>&1
    grc=$?
    nw=$(grep -c 'warning:' logs/$name.gcc)
    if [ $grc -ne 0 ]; then gstat="COMPILE ERROR"; elif [ "$nw" -gt 0 ]; then
        gstat="WARNING ($nw): $(grep -m1 'warning:' logs/$name.gcc | sed 's/.*warning: //; s/|/\\|/g')"
    else gstat="clean"; fi
    if [ ! -f drivers/d_$name.c ]; then
        printf '| %s | accepted | %s | (no driver) | |\n' "$name" "$gstat"; continue
    fi
    if ! $CC -std=c99 -O1 -fopenmp -Idrivers -Isrc -w drivers/d_$name.c src/$name.c "$out" \
            -o build/$name -lm > logs/$name.build 2>&1; then
        printf '| %s | accepted | %s | BUILD ERROR | %s |\n' "$name" "$gstat" \
            "$(grep -m1 error logs/$name.build | sed 's/|/\\|/g')"
        continue
    fi
    OMP_NUM_THREADS=2 timeout 60 nice -n 10 ./build/$name > logs/$name.run 2>&1
    xrc=$?
    res=$(grep -m1 '^RESULT:' logs/$name.run | sed 's/RESULT: //')
    errs=$(grep -m1 '^f=' logs/$name.run | sed 's/.*max_rel_err(h=1e-6)=\([^ ]*\).*max_rel_err(h=1e-5)=\(.*\)/err \1 \/ \2/')
    if [ -z "$res" ]; then res="CRASH (exit $xrc)"; fi
    first=$(grep -m1 '^  param' logs/$name.run | sed 's/^ *//')
    printf '| %s | accepted | %s | %s | %s %s |\n' "$name" "$gstat" "$res" "$errs" "$first"
done < probes.txt

# Reduced triggers of the non-OK results (reduced/cases.txt): s2sad's verdict on each.
if [ -z "$1" ]; then
    printf '\n| reduced case | s2sad rc | first message |\n|---|---|---|\n'
    while IFS='|' read -r name func wrt; do
        [ -z "$name" ] && continue
        nice -n 10 $S2SAD grad reduced/$name.c --func "$func" --wrt "$wrt" --target c \
            -o gen/grad_$name.c > logs/$name.s2sad 2>&1
        rc=$?
        msg=$(grep -m1 -E 'error|internal' logs/$name.s2sad | sed 's/|/\\|/g')
        if [ $rc -eq 0 ]; then
            w=$($CC -std=c99 -Wall -Wextra -O1 -c gen/grad_$name.c -o build/$name.o 2>&1 | grep -m1 'warning:' | sed 's/.*warning: //; s/|/\\|/g')
            msg="accepted; gcc: ${w:-clean}"
        fi
        printf '| %s | %d | %s |\n' "$name" "$rc" "$msg"
    done < reduced/cases.txt
    # r20: the aliased restrict shadows miscompile at -O3 when grad_dot is not inlined
    if $CC -std=c99 -O3 -fno-inline -w reduced/t_r20.c gen/grad_r20_restrict_alias.c -o build/t_r20 -lm; then
        printf '\nr20 at gcc -O3 -fno-inline (d_x should be 2x): %s\n' "$(./build/t_r20)"
        $CC -std=c99 -O1 -w reduced/t_r20.c gen/grad_r20_restrict_alias.c -o build/t_r20 -lm
        printf 'r20 at gcc -O1:                               %s\n' "$(./build/t_r20)"
    fi
fi
