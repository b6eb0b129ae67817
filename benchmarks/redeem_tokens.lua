-- wrk script: POSTs one fresh token per request, read from TOKENS (one per line), as app user <USERS><n>.
-- ROUTE picks the route (redeem_purchase or a benchmark baseline); USERS keeps runs' users apart (default bench-).
-- Single thread: tokens are used once.
local tokens = {}
local n = 0
local route = os.getenv("ROUTE") or "/v1/subscribers/redeem_purchase"
local users = os.getenv("USERS") or "bench-"

function init(args)
  for line in io.lines(os.getenv("TOKENS")) do tokens[#tokens + 1] = line end
end

function request()
  n = n + 1
  local token = tokens[((n - 1) % #tokens) + 1]
  local body = '{"app_user_id":"' .. users .. n .. '","redemption_token":"' .. token .. '"}'
  return wrk.format("POST", route, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. os.getenv("KEY")}, body)
end

function done(summary, latency, requests)
  io.write(string.format("used %d tokens of %d\n", n, #tokens))
end
