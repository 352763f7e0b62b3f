/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bus-call-huge METHOD BYTES: call org.rdmad1.Manager.METHOD (GetLink or ResolveGid) on the
 * system bus ($DBUS_SYSTEM_BUS_ADDRESS) with one string argument of BYTES 'x' (too long for a
 * command line), and print the D-Bus error name and the length of its message, or "ok".
 * bus-test.sh uses it to check that rdmad does not echo an argument near the bus's message
 * size limit into its error reply (dbus-daemon would disconnect rdmad for the reply). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

int main(int argc, char **argv) {
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *call = NULL, *reply = NULL;
	sd_bus *bus = NULL;
	size_t n;
	char *big;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: bus-call-huge GetLink|ResolveGid BYTES\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 10);
	big = malloc(n + 1);
	if (!big)
		return 1;
	memset(big, 'x', n);
	big[n] = 0;

	r = sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "bus-call-huge: cannot connect: %s\n", strerror(-r));
		return 1;
	}
	/* A long timeout (sd-bus's default is 25 s): a 30 MiB message takes a while through
	 * dbus-daemon and a sanitizer build of rdmad on a busy machine. */
	if (strcmp(argv[1], "GetLink") == 0)
		r = sd_bus_message_new_method_call(bus, &call, "org.rdmad1", "/org/rdmad1",
						   "org.rdmad1.Manager", "GetLink");
	else
		r = sd_bus_message_new_method_call(bus, &call, "org.rdmad1", "/org/rdmad1",
						   "org.rdmad1.Manager", "ResolveGid");
	if (r >= 0)
		r = strcmp(argv[1], "GetLink") == 0
			    ? sd_bus_message_append(call, "s", big)
			    : sd_bus_message_append(call, "sss", "mlx5_0/1", big, "");
	if (r >= 0)
		r = sd_bus_call(bus, call, UINT64_C(120) * 1000 * 1000, &error, &reply);
	if (r >= 0)
		printf("ok\n");
	else
		printf("%s %zu\n", error.name ? error.name : strerror(-r),
		       error.message ? strlen(error.message) : 0);
	sd_bus_error_free(&error);
	sd_bus_message_unref(call);
	sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(bus);
	free(big);
	return 0;
}
