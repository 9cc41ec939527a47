# shellcheck shell=bash
# Network facts for master discovery: which IPv4 address other nodes can reach, which interface
# routes to the master, whether a TCP port is free. Uses iproute2 and /proc only.

# Interfaces that carry no traffic between nodes: container and VM bridges, veth ends, CNI overlays.
tl_iface_excluded() {
  case "$1" in
    lo | docker* | virbr* | veth* | br-* | cni* | flannel* | cali* | vxlan.calico | wireguard.cali | lxcbr* | podman* | kube-ipvs* | tunl0 | dummy*) return 0 ;;
  esac
  return 1
}

tl_ip_to_int() {
  local a b c d
  IFS=. read -r a b c d <<<"$1"
  printf '%u' $(((a << 24) | (b << 16) | (c << 8) | d))
}

# tl_ip_in_cidr IP CIDR
tl_ip_in_cidr() {
  local net=${2%/*} bits=${2#*/} ip_i net_i mask
  [[ $bits =~ ^[0-9]+$ ]] && ((bits <= 32)) || return 1
  ip_i=$(tl_ip_to_int "$1")
  net_i=$(tl_ip_to_int "$net")
  mask=$(((0xFFFFFFFF << (32 - bits)) & 0xFFFFFFFF))
  (((ip_i & mask) == (net_i & mask)))
}

tl_valid_ipv4() {
  local re='^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$' i
  [[ $1 =~ $re ]] || return 1
  for i in 1 2 3 4; do ((BASH_REMATCH[i] <= 255)) || return 1; done
}

tl_valid_port() { [[ $1 =~ ^[0-9]{1,5}$ ]] && (($1 >= 1 && $1 <= 65535)); }

# Loopback and link-local addresses are never routable between nodes.
tl_addr_unusable() { [[ $1 == 127.* || $1 == 169.254.* || $1 == 0.* ]]; }

# Print "IFACE ADDR" of this node's routable IPv4 address. Preference: --master-iface,
# then --master-cidr, then the default route's interface, then the first global address.
tl_pick_address() {
  local want_iface=$1 want_cidr=$2 dev cidr addr default_dev="" first=""
  command -v ip >/dev/null || {
    echo "track-launch: 'ip' (iproute2) is not installed on $(hostname); it is needed to find this node's address" >&2
    return 1
  }
  default_dev=$(ip -4 -o route show default 2>/dev/null | sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -n 1)
  while read -r _ dev _ cidr _; do
    addr=${cidr%/*}
    tl_addr_unusable "$addr" && continue
    if [[ -n $want_iface ]]; then
      [[ $dev == "$want_iface" ]] && { echo "$dev $addr"; return 0; }
      continue
    fi
    if [[ -n $want_cidr ]]; then
      tl_ip_in_cidr "$addr" "$want_cidr" && { echo "$dev $addr"; return 0; }
      continue
    fi
    tl_iface_excluded "$dev" && continue
    [[ $dev == "$default_dev" ]] && { echo "$dev $addr"; return 0; }
    [[ -z $first ]] && first="$dev $addr"
  done < <(ip -4 -o addr show scope global 2>/dev/null)
  if [[ -n $first ]]; then echo "$first"; return 0; fi
  if [[ -n $want_iface ]]; then
    echo "track-launch: interface '$want_iface' (--master-iface) has no usable IPv4 address on $(hostname)" >&2
  elif [[ -n $want_cidr ]]; then
    echo "track-launch: no IPv4 address of $(hostname) lies in $want_cidr (--master-cidr)" >&2
  else
    echo "track-launch: $(hostname) has no routable IPv4 address (only loopback, link-local or bridge ones); set --master-iface or --master-cidr" >&2
  fi
  return 1
}

# The job's other nodes' addresses as Slurm knows them (NodeAddr), one per line: SLURM_NODE_ALIASES
# ("name:addr:host,...") for the nodes it names, one `scontrol -o show node LIST` for the others,
# host names resolved in one getent call. Nothing (and success) outside Slurm or when scontrol cannot
# answer. At most 64 addresses; past that, one per /24 (peers in one /24 route alike).
tl_peer_addrs() {
  local list=${SLURM_STEP_NODELIST:-${SLURM_JOB_NODELIST:-}} self=${SLURMD_NODENAME:-} aliases=${SLURM_NODE_ALIASES:-}
  local names="" nodes="" to=() pairs addrs unresolved
  [[ -n $list ]] || return 0
  [[ -n $self ]] || self=$(hostname 2>/dev/null) || self=""
  [[ $aliases == "(null)" ]] && aliases=""
  command -v timeout >/dev/null && to=(timeout 20)
  if command -v scontrol >/dev/null; then
    # The aliases alone do when they name every other node (hostname expansion is local).
    [[ -n $aliases ]] && { names=$(scontrol show hostnames "$list" 2>/dev/null) || names=""; }
    if [[ -z $names ]] || ! awk -v self="$self" -v aliases="$aliases" -v names="$names" 'BEGIN {
      n = split(aliases, a, ","); for (i = 1; i <= n; i++) { split(a[i], f, ":"); al[f[1]] = 1 }
      m = split(names, h, "\n"); for (i = 1; i <= m; i++) if (h[i] != self && !(h[i] in al)) exit 1 }'; then
      nodes=$("${to[@]}" scontrol -o show node "$list" 2>/dev/null) || nodes=""
    fi
  fi
  # "name addr" of every other node, in Slurm's order, then the aliases it did not list (an alias wins).
  pairs=$(awk -v self="$self" -v aliases="$aliases" '
    BEGIN {
      n = split(aliases, a, ",")
      for (i = 1; i <= n; i++) {
        split(a[i], f, ":"); gsub(/[][]/, "", f[2])
        if (f[1] != "" && f[2] != "" && !(f[1] in al)) { al[f[1]] = f[2]; an[++na] = f[1] }
      }
    }
    {
      name = ""; addr = ""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^NodeName=/) name = substr($i, 10)
        else if ($i ~ /^NodeAddr=/) addr = substr($i, 10)
      }
      if (name == "" || name == self || (name in done)) next
      done[name] = 1
      if (name in al) addr = al[name]
      if (addr != "") print name, addr
    }
    END { for (i = 1; i <= na; i++) if (!(an[i] in done) && an[i] != self) print an[i], al[an[i]] }' <<<"$nodes")
  addrs=$(awk '$2 ~ /^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$/ { print $2 }' <<<"$pairs")
  unresolved=$(awk '$2 !~ /^[0-9.]+$/ && $2 !~ /:/ && n++ < 64 { print $2 }' <<<"$pairs")
  if [[ -n $unresolved ]] && command -v getent >/dev/null; then
    # shellcheck disable=SC2086 # one word per name (node names hold no blanks or globs)
    addrs+=$'\n'$("${to[@]}" getent ahostsv4 $unresolved 2>/dev/null | awk '{ print $1 }' || true)
  fi
  awk '
    /^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$/ && !/^(127|0)\./ && !/^169\.254\./ && !seen[$0]++ { a[++n] = $0 }
    END {
      for (i = 1; i <= n && kept < 64; i++) {
        if (n > 64) { net = a[i]; sub(/\.[0-9]+$/, "", net); if (nets[net]++) continue }
        print a[i]; kept++
      }
    }' <<<"$addrs"
}

# tl_route_of ADDR: sets the caller's type (local, unreachable, ...; empty for a unicast route), via,
# dev and src from `ip -4 -o route get ADDR`; fails where there is no answer.
tl_route_of() {
  local line w i
  line=$(ip -4 -o route get "$1" 2>/dev/null) || return 1
  read -ra w <<<"$line"
  ((${#w[@]})) || return 1
  type="" via="" dev="" src=""
  case ${w[0]} in local | broadcast | multicast | unreachable | blackhole | prohibit | throw) type=${w[0]} ;; esac
  for ((i = 0; i + 1 < ${#w[@]}; i++)); do
    case ${w[i]} in via) via=${w[i + 1]} ;; dev) dev=${w[i + 1]} ;; src) src=${w[i + 1]} ;; esac
  done
}

# The master's candidate addresses, best first, one per line: --master-iface / --master-cidr
# when set (one address); else the source addresses this node uses towards its peers
# (tl_peer_addrs), those reaching the most peers over connected (non-gateway) routes first, then
# the most peers at all; else tl_pick_address's choice. At most 8.
tl_pick_candidates() {
  local want_iface=$1 want_cidr=$2 peer type via dev src picked key
  local -A direct=() total=() first=()
  local n=0
  if [[ -z $want_iface && -z $want_cidr ]] && command -v ip >/dev/null; then
    while read -r peer; do
      if [[ -z $peer ]] || ! tl_route_of "$peer"; then continue; fi
      # A peer address of our own (local) or a route to nowhere says nothing about the peers.
      [[ -z $type && -n $src ]] || continue
      if ! tl_valid_ipv4 "$src" || tl_addr_unusable "$src" || tl_iface_excluded "$dev"; then continue; fi
      [[ -n ${first[$src]:-} ]] || first[$src]=$((n += 1))
      total[$src]=$((${total[$src]:-0} + 1))
      if [[ -z $via ]]; then direct[$src]=$((${direct[$src]:-0} + 1)); fi
    done < <(tl_peer_addrs)
  fi
  if ((n > 0)); then
    for key in "${!first[@]}"; do
      printf '%d %d %d %s\n' "${direct[$key]:-0}" "${total[$key]}" "${first[$key]}" "$key"
    done | sort -k1,1nr -k2,2nr -k3,3n | awk 'NR <= 8 { print $4 }'
    return 0
  fi
  picked=$(tl_pick_address "$want_iface" "$want_cidr") || return 1
  printf '%s\n' "${picked#* }"
}

# tl_choose_master WHO MASTER_HOST CANDIDATE...: prints the candidate this node talks to: the
# first one it reaches other than through its default route (this node's own address counts:
# the ranks on the master's node), else the first it reaches at all. With none, fails naming the
# candidates, this node's addresses and the flags that choose the master's network.
tl_choose_master() {
  local who=$1 master_host=$2 c type via dev src defaults fallback="" own
  shift 2
  command -v ip >/dev/null || {
    printf '%s\n' "track-launch: 'ip' (iproute2) is not installed on $(hostname); it is needed to find the route to the master" >&2
    return 1
  }
  # "via dev" of each default route, one per line.
  defaults=$(ip -4 -o route show default 2>/dev/null | awk '{ v = ""; d = ""; for (i = 1; i < NF; i++) { if ($i == "via") v = $(i + 1); if ($i == "dev") d = $(i + 1) } print v, d }') || defaults=""
  for c in "$@"; do
    tl_route_of "$c" || continue
    [[ $type == local ]] && { printf '%s\n' "$c"; return 0; }
    [[ -z $type ]] || continue
    if { [[ -z $via ]] || [[ $'\n'$defaults$'\n' != *$'\n'"$via $dev"$'\n'* ]]; } && ! tl_iface_excluded "$dev"; then
      printf '%s\n' "$c"
      return 0
    fi
    [[ -n $fallback ]] || fallback=$c
  done
  [[ -n $fallback ]] && { printf '%s\n' "$fallback"; return 0; }
  own=$(ip -4 -o addr show 2>/dev/null | awk '$4 !~ /^127\./ { printf "%s%s %s", (n++ ? ", " : ""), $2, $4 }') || own=""
  # One printf, one line: a rank ended between two writes would leave half the message.
  printf 'track-launch: %s has no route to the master (%s) at any of its addresses %s; this node'"'"'s addresses: %s. Set --master-iface IFACE or --master-cidr CIDR to the master'"'"'s interface or network that every node reaches.\n' \
    "$who" "${master_host:-rank 0}" "$*" "${own:-none}" >&2
  return 1
}

# Print "IFACE ADDR": this node's interface and source address towards the master.
tl_route_to() {
  local target=$1 type via dev src
  tl_route_of "$target" || {
    echo "track-launch: $(hostname) has no route to the master $target" >&2
    return 1
  }
  if [[ $dev == lo ]]; then
    # The master is this node: the route is via lo, but peers reach us on the interface holding it.
    dev=$(ip -4 -o addr show 2>/dev/null | awk -v a="$target" '{ split($4, p, "/"); if (p[1] == a) { print $2; exit } }')
    src=$target
  fi
  echo "$dev $src"
}

# True when something listens on TCP port $1 (IPv4 or IPv6), read from /proc (no ss/netstat needed).
tl_port_in_use() {
  local hex f
  hex=$(printf '%04X' "$1")
  for f in /proc/net/tcp /proc/net/tcp6; do
    [[ -r $f ]] || continue
    awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }' "$f" && return 0
  done
  return 1
}

# A free port below the kernel's ephemeral range, so outgoing connections cannot take it first;
# TRACK_LAUNCH_PORT_RANGE=LO-HI narrows it (sites whose firewalls open only some ports).
tl_pick_port() {
  local lo=20000 hi=32767 port i range=${TRACK_LAUNCH_PORT_RANGE:-}
  if [[ -n $range ]]; then
    if [[ ! $range =~ ^([0-9]{1,5})-([0-9]{1,5})$ ]] || ((BASH_REMATCH[1] < 1 || BASH_REMATCH[2] > 65535 || BASH_REMATCH[1] > BASH_REMATCH[2])); then
      echo "track-launch: TRACK_LAUNCH_PORT_RANGE='$range' is not LO-HI with 1 <= LO <= HI <= 65535" >&2
      return 1
    fi
    lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
  fi
  for ((i = 0; i < 200; i++)); do
    port=$((lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1)))
    tl_port_in_use "$port" || { echo "$port"; return 0; }
  done
  echo "track-launch: no free TCP port found between $lo and $hi on $(hostname)" >&2
  return 1
}
