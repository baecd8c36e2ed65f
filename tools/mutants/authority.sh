#!/bin/bash
# Mutant check for issue 17 (docs/safety.md "Threat model"): each run reverts one defence to the
# old behaviour, rebuilds the one test binary that guards it and runs that test, which must fail;
# then restores the file. Needs a built build/ (tools/build.sh). Usage: tools/mutants/authority.sh
cd "$(dirname "$0")/../.."
run() { # name file sed-expr target test-args
  local name=$1 file=$2 expr=$3 target=$4; shift 4
  cp "$file" /tmp/mutant.bak
  sed -i "$expr" "$file"
  if cmp -s "$file" /tmp/mutant.bak; then echo "MUTANT $name: sed did not apply"; return; fi
  if ! ninja -C build -j2 "$target" >/tmp/mutant-build.log 2>&1; then echo "MUTANT $name: build failed"; tail -5 /tmp/mutant-build.log;
  else
    out=$(cd build && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=suppressions=$PWD/../tests/support/ubsan.supp ./tests/$target "$@" 2>&1)
    rc=$?
    fails=$(echo "$out" | grep -c "error: in")
    echo "MUTANT $name: exit $rc, $fails failed checks ($target $*)"
  fi
  cp /tmp/mutant.bak "$file"
}
run peer_view_unverified actors/sidecar/fencing/signed_answers.cpp 's/if (!a.keys || !v || !auth::view_verifies(a.keys->operator_keys, a.group, \*v)) {/if (!v) {/' actors_sidecar --run_test=sidecar_monitor/forged_peer_views_are_not_adopted_and_fence_nothing
run operator_answer_unsigned_ok actors/sidecar/fencing/signed_answers.cpp '0,/if (!a.keys || !auth::body_verifies(a.keys->operator_keys, auth::purpose::operator_answer,/s//if (false \&\& !auth::body_verifies(a.keys->operator_keys, auth::purpose::operator_answer,/' actors_sidecar --run_test=sidecar_monitor/only_a_signed_answer_from_the_leader_renews_the_lease
run ack_unverified actors/operator/group/view_push.cpp 's/if (!auth::body_verifies(site_keys, auth::purpose::ack, group, r.body, r.signature)) {/if (group.empty() \&\& site_keys.empty()) {/' actors_executor --run_test=promotion_gate_pushes/an_impostor_behind_the_old_primarys_address_does_not_open_rule2,an_ack_signed_for_another_push_or_site_does_not_count
run lost_connection_acked actors/sidecar/fencing/push_rule.cpp 's/if (o.error_kind == "down") {/if (o.error_kind == "down" || o.error_kind == "lost_connection") {/' actors_sidecar --run_test=sidecar_monitor/push_with_mysqld_down_acks_unreachable
run no_epoch_recovery actors/operator/group/coordinator.cpp 's/load_after_epoch_recovery(self, std::move(d));/step_group(self, input::loaded{std::move(d)});/' actors_operator --run_test=an_empty_store_resumes_from_the_highest_view_the_sidecars_hold
run report_unbounded actors/operator/api/operator_api.cpp 's/if (auto shape = json_shape_problem(req.body, report_limits); !shape.empty())/if (auto shape = std::string(); !shape.empty())/' integration_status_api --run_test=status_api/sidecar_reports_are_bounded_signed_and_for_known_sites_only
ninja -C build -j2 >/tmp/mutant-build.log 2>&1 && echo "rebuilt clean"
