// Lua that hands out an address lease (SPEC 29), included in the script
// that records a name present (src/queue/registry-scripts.ts
// RECORD_PRESENT), so the lease, the pool's held set and the record's
// `address` change together or not at all. The keys (redis-keys.ts
// addressLeases, addressHeld, addressCooling, addressCursor) share the
// service's prefix, so its hash tag on a Cluster. Times are Redis TIME
// in ms, as the release side's cooling scores are.

/**
 * `takeAddress(leases, held, cooling, cursor, holder, uid, pool, head)`:
 * the first address of the pool's range from the cursor on (wrapping)
 * that is not in `pool.skip` (network, broadcast, gateway, excluded), not
 * held and not cooling (a cooling score above now; an expired one is
 * removed when its address is taken). Writes held[address] = holder,
 * leases[holder] = the lease JSON and the cursor past it, and answers the
 * lease JSON; false when every address is taken, having written nothing.
 * `pool` is {first, last, skip} as numbers (pool-args.ts); `head` the
 * lease's JSON without address and uid, which are put before its keys.
 */
export const ADDRESS_FUNCTIONS = `
local function ipv4Text(n)
  return string.format('%d.%d.%d.%d', math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
end
local function redisNowMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local function takeAddress(leases, held, cooling, cursor, holder, uid, pool, head)
  local size = pool.last - pool.first + 1
  local skip = {}
  for _, n in ipairs(pool.skip) do skip[n] = true end
  local now = redisNowMs()
  local start = (tonumber(redis.call('GET', cursor)) or 0) % size
  for i = 0, size - 1 do
    local offset = (start + i) % size
    local n = pool.first + offset
    if not skip[n] then
      local address = ipv4Text(n)
      local resting = redis.call('ZSCORE', cooling, address)
      if redis.call('HEXISTS', held, address) == 0 and not (resting and tonumber(resting) > now) then
        if resting then redis.call('ZREM', cooling, address) end
        local lease = '{"address":' .. cjson.encode(address) .. ',"uid":' .. cjson.encode(uid) .. ',' .. string.sub(head, 2)
        redis.call('HSET', held, address, holder)
        redis.call('HSET', leases, holder, lease)
        redis.call('SET', cursor, tostring((offset + 1) % size))
        return lease
      end
    end
  end
  return false
end`;
