# shellcheck shell=bash
# Network facts for master discovery: which IPv4 address other nodes can reach, which
# interface routes to the master, whether a TCP port is free. Uses iproute2 and /proc only.

# Interfaces that carry no traffic between nodes: container and VM bridges, veth ends, CNI
# (Calico's overlays hold a global /32: vxlan.calico, wireguard.cali).
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

# Print "IFACE ADDR": this node's interface and source address towards the master.
tl_route_to() {
  local target=$1 line dev src
  line=$(ip -4 -o route get "$target" 2>/dev/null) || {
    echo "track-launch: $(hostname) has no route to the master $target" >&2
    return 1
  }
  dev=$(sed -n 's/.* dev \([^ ]*\).*/\1/p' <<<"$line")
  src=$(sed -n 's/.* src \([^ ]*\).*/\1/p' <<<"$line")
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
