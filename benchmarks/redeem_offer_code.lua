-- wrk script: redeems the custom code CODE once per request, each time as a new app user (one redemption per customer).
local n = 0
local prefix = os.getenv("USER_PREFIX") or "bench"

function request()
  n = n + 1
  local body = '{"app_user_id":"' .. prefix .. '-' .. n .. '","code":"' .. os.getenv("CODE") .. '"}'
  return wrk.format("POST", "/v1/subscribers/redeem_offer_code",
    {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. os.getenv("KEY")}, body)
end
