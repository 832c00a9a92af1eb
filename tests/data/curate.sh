#!/usr/bin/env bash
# Rebuilds tests/data from the team's shared corpus (a maintainer's tool; the
# tests never run it and never need the corpus): the entries listed below,
# each copied unchanged but for the files the suite does not read (.ttir,
# .source, __grp__*.json), and the corpus's INDEX tables cut to those entries.
#
#   tests/data/curate.sh [CORPUS]      (default: ../shared/corpus beside the repository)
#
# What each entry is for is in tests/data/README.md.  Every .hsaco keeps its
# .amdgcn and .json (the compiler's own figures, which the unit tests compare
# with); a .llir only where a test builds it again with llc-22 (the LLVM
# oracles, the what-if builds), since those are the largest files.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
corpus=${1:-$here/../../../shared/corpus}
[[ -d $corpus/triton-cache ]] || { echo "curate.sh: no Triton cache corpus at $corpus" >&2; exit 1; }
corpus=$(cd "$corpus" && pwd)

# Every gfx90a/gfx942 entry of the cache (the unit tests compare all of them with their
# trailers); with its .llir (L) or without (-).
cache=(
  L:BPPSWMTVKUWIJ546MIGZSHRISPX6AHXVGWZV7HYEYYLWZ6ZRQSQQ # gfx90a add_kernel
  L:I24B4VIKUZU37PH46DEKWPBMMZFR3R2C6IFQV55DYIF4MODDWY2Q # gfx942 add_kernel
  L:MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA # gfx90a softmax_kernel
  L:MFEBOYPR7P6HNPFJPBTP3W7QVPJBBKIUWXLLGARF6E5Y2SVVR3YQ # gfx942 softmax_kernel
  L:HVKXC3PYDYVOCW6Z46BQF7TKO33TL3IBD2BI7GRRE6BXFKM6JI4A # gfx90a layernorm_fwd
  L:UJTDDW7PBLUE4KQYQFNZQAOG7GCJCFFGPSSV6N6453FJBNXULG6Q # gfx942 layernorm_fwd
  L:SUJBNLZWAZC7NO5J3T3LVKCKXAD3AMYKJH7URV2PQVD7HF6A6K6A # gfx90a matmul, 64 AGPR accumulators
  L:6A3MNTG6BPQKKGPLY7CZMRTY2FQTNPBE3EJYVJZCMG73AQNRFIEA # gfx90a matmul, 4 warps (diff: old)
  -:U7YEDTEY7XQPPR3H2B6KFRLTGU5DV6W4GLDXB6TTYQKERDWEWIUQ # gfx90a matmul, 8 warps, spills (diff: new)
  L:R7O4FUVERJRPAQCRHMOH4EJ65NENOC2BE33DWLCFEYLUL37GHVDA # gfx90a matmul, 8 warps, no AGPR or scratch
  L:GTD3VOYNYBOMJ6PVTJQZCOP7G44GFGRP5TNH5TQONJ5U3F7B2MBA # gfx942 matmul, 4 warps (what-if)
  L:7F5MNRYO5M7B5STKNJDXI55TWX5SZOR53NGB36J7A67ADR6IBUOQ # gfx942 matmul, 8 warps, no AGPR or scratch
  -:45RWWDMLC7RKJL3EHVWTWVNEWRZYFF4Z2Z3ERIVLUT5TTV4RD7CA # gfx942 matmul, 96 KiB of LDS
  -:3EB5ITNVJJEASVGOOFNBKD6OBZIVKCNTM3VGAWZY5Z3USBCVGDFQ
  -:3JCG3MYMLYDUTIR7GIR2DCGWPIDOGFPOUUDRDFP5I4OMTH5VVFTA
  -:77Z3XZ3M6LPDX47FKSZZKLZNDIVTOMDOPMLW2ZLO7UNHHRYL4TQQ
  -:7XK6SYWOJHF6B46NPSBNFSHBIDFUSF3DYRMUH6LMF5JDKGAPSQ2Q
  -:CJJYXIMEOTYEHREN7IED7XV5NG5A73QI6IK3YUFJ75PVUXJUE4VQ
  -:DAHSWKNFPPHCXPQO2ZIVAOIMU7MIJZJUWRXGGDL6IH66QCDL6ZGQ
  -:GBBQEOMUOJ5IB7RIFMSQP5WOZQDAH6HJLKWJZDLDUHIQ6FEJIVHA
  -:HEI4A4PVMFM6FV3LJGCL55K6QPKB6ESAUR4WR3N6NRTM3KQXLRQA
  -:JCZH54DUI2GAWSJFWOQNBADCDH3LCYV2KY3SUXSDGZY2IR3HKHPQ
  -:LC2KW5NAMS53HJW64JWJ2SX2HO22LMF2J7BQYTRFXRDUIJEMG4RA
  -:PRUNXVILGX5JXRXNQIE52A4HUKNIZFKQPBNCNTRYJL22Y43BTE5Q
  -:SYIT55AJSPBM6NKQRP2T62SPLTTEESWHO7NEHQMQFKAO5BQD6WKQ
  -:WWWM7MI2RWVNCHNQDKGJ2YSGHLX4SCKBO6K6V3WMNDF3MDVKD56A
  L:LZJ667C7JP62SNK5JTV3O4L5MEBAWSBVUKRGI5OMGRI3GP2VHRMQ # gfx90a attn_fwd, 8 warps, spills
  L:AHHMGN6WGGNWQVLKK2NBVBZ2C6C6NF2Z4JHMCX7R2CZX3RX73AOQ # gfx90a attn_fwd, 4 warps (text views)
  L:ZIQQ3UD4LQ5PYFPCFL5XX73F43JZYQU4AJDNK3Y3YICM27X2KRRA # gfx90a attn_fwd, 8 warps, no AGPR or scratch
  L:74WZRH725VVWYIB35343RTBOXB5BRDOUTUDP2PYGTKXRMZBFDOXQ # gfx942 attn_fwd, 8 warps, no AGPR or scratch
  -:CJ435HBXGGVMKECTEF4WOZ5YBOSYPAL5Y5L6LSUPZSNNLDGHTXSA
  -:6PXARFIDWJV2VE23G5PG54INSBNQOGIWENUR354VZX42AYLVYWFA
  -:DBOSKYH2R3CP45ZKU64BPME4EJGFKX3EX2NJ46A6AGYC22J3YHHQ
  -:PTH225VCZMMO3DMNCLTXBX7P6PNNQBNRA4S2GITS2SGEJFOVMY6Q
)
# The other targets: each kernel once per arch, small shapes (gfx1100's attention without
# its 540 KB .llir).
targets=(
  L:532KT47NWL2ODPKMN24MRTW4OYNPRCXP2SNGR6LSK7Q7RSW6DD6A # gfx908 add_kernel
  L:4C2DHQYZIEYDZ2NC2666BDLBQIBQXCYGRMCQBIJKFB7ATI3QLGUA # gfx908 softmax_kernel
  L:WVSVGFRGKL4LDGV5EXQ3LAKSAQGW7TVUWN3QDFUEEINDNN534UMA # gfx908 layernorm_fwd
  L:ZAIKBQTCAFQC24OZ3MSDZSYRJHZ4POQMXTOGLSUFE3E4FDLAFGWQ # gfx908 matmul, 4 warps
  L:C2ITIWQEZ3AFNGJF7XI7DUBFRWT7LH5XQOJFHD5CL5VB3XZWLMRQ # gfx908 attn_fwd, 4 warps
  L:YWQ22HCUUZSUP7VCWWGHXU6CSQXDIQNOXM26UFKPJEV74E2NYF3Q # gfx950 add_kernel
  L:AR636FMSOP # gfx950 softmax_kernel
  L:TYGKP3CJ4D # gfx950 layernorm_fwd
  L:UV4SICJX5B # gfx950 matmul, 4 warps
  L:BPVOB2V2XE # gfx950 attn_fwd, 4 warps
  L:4ONJEWBJLD # gfx1100 add_kernel
  L:4JOYSLO77L # gfx1100 softmax_kernel
  L:PXY6OZOIVZ # gfx1100 layernorm_fwd
  L:GQLTQDJ4S6 # gfx1100 matmul, 4 warps
  -:ZX333NTCZ3 # gfx1100 attn_fwd, 4 warps, 132 B scratch
)

# copy FROM TO WITH_LLIR: an entry's files but those the suite does not read.
copy() {
  local from=$1 to=$2 llir=$3 f
  mkdir -p "$to"
  for f in "$from"/*; do
    case $f in
      *.ttir | *.source | */__grp__*) continue ;;
      *.llir) [[ $llir == L ]] || continue ;;
    esac
    cp "$f" "$to/"
  done
}

# An entry named by a prefix of its folder (the tables below give the full names).
entry() {
  local dir=$1 prefix=$2 found
  found=("$corpus/$dir/$prefix"*)
  [[ ${#found[@]} -eq 1 && -d ${found[0]} ]] || { echo "curate.sh: $dir/$prefix: not one entry" >&2; exit 1; }
  basename "${found[0]}"
}

rm -rf "$here/triton-cache" "$here/triton-cache-targets" "$here/gfx906-llc22" "$here/realworld-handover" "$here/src"
kept=()
for e in "${cache[@]}"; do
  name=$(entry triton-cache "${e#*:}")
  copy "$corpus/triton-cache/$name" "$here/triton-cache/$name" "${e%%:*}"
  kept+=("triton-cache/$name")
done
for e in "${targets[@]}"; do
  name=$(entry triton-cache-targets "${e#*:}")
  copy "$corpus/triton-cache-targets/$name" "$here/triton-cache-targets/$name" "${e%%:*}"
  kept+=("triton-cache-targets/$name")
done
# gfx906 (Z100): the three kernels without matrix instructions, built by llc-22, whole.
for d in "$corpus"/gfx906-llc22/*/; do
  name=$(basename "$d")
  copy "$d" "$here/gfx906-llc22/$name" L
  kept+=("gfx906-llc22/$name")
done
# Public kernels where treg once disagreed with LLVM's post-RA liveness (the shared corpus's
# realworld-handover): only what the MIR oracle rebuilds, Triton's .json and its .llir,
# compressed with xz (test_mir_live.sh unpacks it; 1.2 MB of IR becomes 62 KB).
realworld=(
  OKHCCXWB # gfx90a _attn_bwd: v_fma_mixlo_f16 writes the low half only
  5IBKRV6C # gfx90a kernel_unified_attention_2d: SGPR tuple spilled into lanes, half unwritten
  EI7554IS # gfx942 _jsd_kernel: the same, with reads of never-written SGPRs
  YIQQ4RKM # gfx1100 matmul_kernel_persistent: true16 halves stored by 16-bit stores (issue 34)
)
for prefix in "${realworld[@]}"; do
  name=$(entry realworld-handover "$prefix")
  from=$corpus/realworld-handover/$name to=$here/realworld-handover/$name
  mkdir -p "$to"
  for f in "$from"/*.json; do
    [[ $f == */__grp__* ]] || cp "$f" "$to/"
  done
  for f in "$from"/*.llir; do
    xz -9 -c "$f" >"$to/$(basename "$f").xz"
  done
done

mkdir -p "$here/src"
cp "$corpus"/src/*.py "$here/src/"

# The INDEX tables, cut to the entries kept.
for index in INDEX.md INDEX-targets.md; do
  {
    head -n 2 "$corpus/$index"
    tail -n +3 "$corpus/$index" | while IFS= read -r row; do
      for k in "${kept[@]}"; do
        [[ $row == *"| $k |"* ]] && { printf '%s\n' "$row"; break; }
      done
    done
  } >"$here/$index"
done
echo "curate.sh: ${#kept[@]} entries, $(du -sh "$here" | cut -f1) in $here"
