-- wrk's request script for the benchmarks: paths from a file (args[1]), thread i taking paths
-- i, i + step, i + 2 step… (args[2] = step = the thread count), so with a list of distinct
-- paths no URL is asked twice.
local threads = {}
function setup(thread) thread:set("id", #threads); table.insert(threads, thread) end
function init(args)
  paths = {}
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  n = id
  step = tonumber(args[2])
end
function request()
  local path = paths[(n % #paths) + 1]
  n = n + step
  return wrk.format("GET", path)
end
