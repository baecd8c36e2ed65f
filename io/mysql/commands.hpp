// Every io/mysql command in one include: fencing, replication control, clone.
#pragma once

#include "io/mysql/clone.hpp"
#include "io/mysql/fencing.hpp"
#include "io/mysql/replication.hpp"
