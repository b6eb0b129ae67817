-- wrk script for RevenueCat's SDK writes. MODE=identify: each request logs a fresh anonymous ID in as a new user (the
-- 201 path: a customer and an alias written). MODE=attributes: each request sets two attributes for one of USERS
-- customers (created on first sight), with a newer updated_at_ms each time, as a foregrounded app does.
local n = 0
local mode = os.getenv("MODE") or "identify"
local run = os.getenv("RUN") or "r"
local users = tonumber(os.getenv("USERS") or "1000")

function request()
  n = n + 1
  local headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. os.getenv("KEY"), ["X-Platform"] = "iOS"}
  if mode == "identify" then
    local anonymous = string.format("$RCAnonymousID:%s%024x", string.sub(run .. "00000000", 1, 8), n)
    local body = '{"app_user_id":"' .. anonymous .. '","new_app_user_id":"' .. run .. '-user-' .. n .. '"}'
    return wrk.format("POST", "/v1/subscribers/identify", headers, body)
  end
  local user = run .. "-attr-" .. (n % users)
  local body = '{"attributes":{"$attConsentStatus":{"value":"authorized","updated_at_ms":' .. n .. '},'
    .. '"$displayName":{"value":"User ' .. n .. '","updated_at_ms":' .. n .. '}}}'
  return wrk.format("POST", "/v1/subscribers/" .. user .. "/attributes", headers, body)
end
