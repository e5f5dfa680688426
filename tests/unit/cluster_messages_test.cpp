#include <gtest/gtest.h>

#include "cluster/trial_messages.h"

// The optional fields that came within message version 2 (kept in 3): a result the agent could not
// measure at all, and a request that is a timing beside the run rather than one of its trials. Both
// read back as sent, are absent when not set (so older programs see the entries they know), and an
// entry without them reads as before.
namespace opevo::cluster {
namespace {

StreamEntry entryOf(const std::vector<std::string>& fields) {
  StreamEntry e;
  e.id = "1-0";
  for (std::size_t i = 0; i + 1 < fields.size(); i += 2) e.fields[fields[i]] = fields[i + 1];
  return e;
}

bool hasField(const std::vector<std::string>& fields, const std::string& name) {
  for (std::size_t i = 0; i < fields.size(); i += 2)
    if (fields[i] == name) return true;
  return false;
}

TEST(ClusterMessages, AnAgentsFaultAndARetimingTravelAndAreOptional) {
  TrialResult result;
  result.trialId = "s-1";
  result.measurement.status = TrialStatus::LaunchError;
  result.measurement.message = "agent a cannot measure: no cache";
  EXPECT_FALSE(hasField(resultFields(result), "fault"));
  EXPECT_FALSE(parseResult(entryOf(resultFields(result))).agentFault);
  result.agentFault = true;
  const TrialResult back = parseResult(entryOf(resultFields(result)));
  EXPECT_TRUE(back.agentFault);
  EXPECT_EQ(back.measurement.message, result.measurement.message);

  TrialRequest request;
  request.trialId = "s-2";
  request.kind = "cpu:x";
  request.replyTo = "opevo:results:s";
  request.master = "opevo:master:s";
  request.task = {{"backend", "cpu"}};
  request.config = "[1]";
  EXPECT_FALSE(hasField(requestFields(request), "retiming"));
  EXPECT_FALSE(parseRequest(entryOf(requestFields(request))).retiming);
  request.retiming = true;
  EXPECT_TRUE(parseRequest(entryOf(requestFields(request))).retiming);
}

}  // namespace
}  // namespace opevo::cluster
