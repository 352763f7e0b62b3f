/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmad's record of the driverinit parameters it wrote and has not reloaded
 * (devlink-record.c): written, read back, listed, valid for one netdev only, removed once
 * nothing is pending and no reload failed. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devlink-record.h"
#include "fileio.h"
#include "plan.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

TEST(round_trip) {
	char *state = tree_new(), path[512], text[512];
	DevlinkRecord rec = {
		.function = (char *) "netdevsim/netdevsim1",
		.ifindex = 7,
		.pending = (char *[]){ (char *) "max_macs=64", (char *) "test1=false", NULL },
	}, back = { 0 }, *l = NULL;
	size_t n = 0;

	CHECK_INTEQ(devlink_record_read(state, "netdevsim/netdevsim1", &back), -ENOENT);
	CHECK_INTEQ(devlink_record_write(state, &rec), 0);
	snprintf(path, sizeof(path), "%s/devlink/netdevsim+netdevsim1", state);
	CHECK(read_small_at(AT_FDCWD, path, text, sizeof(text)) > 0);
	CHECK_STREQ(text, "ifindex 7\npending max_macs=64\npending test1=false");
	CHECK_INTEQ(devlink_record_read(state, "netdevsim/netdevsim1", &back), 0);
	CHECK_STREQ(back.function, "netdevsim/netdevsim1");
	CHECK_INTEQ(back.ifindex, 7);
	CHECK_INTEQ(strv_length(back.pending), 2);
	CHECK(!back.failed);
	CHECK(devlink_record_valid(&back, 7));
	CHECK(!devlink_record_valid(&back, 8)); /* a reload made the netdev anew */
	CHECK(devlink_record_pending(&back, "max_macs"));
	CHECK(!devlink_record_pending(&back, "max_mac"));
	devlink_record_done(&back);

	/* a failed reload: its reason, one line whatever the kernel said */
	rec.failed_for = (char *) "max_macs=64 test1=false";
	rec.failed = (char *) "User forbid the reload\nfor testing purposes";
	CHECK_INTEQ(devlink_record_write(state, &rec), 0);
	CHECK_INTEQ(devlink_records_list(state, &l, &n), 0);
	CHECK_INTEQ(n, 1);
	CHECK_STREQ(l[0].failed, "User forbid the reload for testing purposes");
	CHECK_STREQ(l[0].failed_for, "max_macs=64 test1=false");
	devlink_records_free(l, n);

	/* nothing pending, no failure: the file goes */
	rec = (DevlinkRecord){ .function = (char *) "netdevsim/netdevsim1", .ifindex = 7 };
	CHECK_INTEQ(devlink_record_write(state, &rec), 0);
	CHECK(access(path, F_OK) < 0 && errno == ENOENT);

	/* what does not parse is no record */
	put_file(state, "devlink/netdevsim+netdevsim1", "pending max_macs=64\n"); /* no ifindex */
	CHECK_INTEQ(devlink_record_read(state, "netdevsim/netdevsim1", &back), -EBADMSG);
	CHECK_INTEQ(devlink_records_list(state, &l, &n), 0);
	CHECK_INTEQ(n, 0);
	free(l);
	CHECK_INTEQ(devlink_record_read(state, "no-slash", &back), -EINVAL);
	tree_free(state);
}

TESTS_MAIN(TEST_ENTRY(round_trip))
