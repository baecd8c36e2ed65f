// Five-field cron expressions as Kubernetes CronJobs take them (checked before a CronJob exists).
#pragma once

#include <string>
#include <string_view>

namespace br::config {

/// "" when `expr` is a valid 5-field cron (minute 0-59, hour 0-23, day of month 1-31, month 1-12
/// or JAN-DEC, day of week 0-7 or SUN-SAT; each field a comma list of `*`, `?` (day fields), N,
/// N-M, with an optional /step >= 1; the macros @yearly @annually @monthly @weekly @daily
/// @midnight @hourly), else what is wrong, naming the field ("hour: 24 is out of range 0-23").
/// No seconds field, no `CRON_TZ=`/`TZ=` prefix (timeZone says it).
std::string check_cron(std::string_view expr);

/// True when `tz` can be an IANA time zone name for CronJob.spec.timeZone ("Etc/UTC",
/// "Europe/Berlin"): letters, digits and / _ + -, at most 64, not absolute, no "..".
bool plausible_time_zone(std::string_view tz);

}  // namespace br::config
