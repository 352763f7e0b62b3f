/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fake-polkit MODE: org.freedesktop.PolicyKit1 on the system bus ($DBUS_SYSTEM_BUS_ADDRESS)
 * answering CheckAuthorization for bus-test.sh, which cannot register rdmad's actions with the
 * real polkitd without installing them (the VM tier does that). Prints one line per check,
 * "ACTION FLAGS UID", UID being the subject's, which it asks the bus for.
 *   allow:UID  authorize the subject when it runs as UID, deny everyone else
 *   challenge  deny, saying that authentication would help
 *   hang       never answer (the checks pile up on rdmad's side) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

static const char *mode;
static sd_bus_message *held[256];
static size_t n_held;

static int subject_uid(sd_bus *bus, const char *name, uint32_t *ret) {
	sd_bus_message *reply = NULL;
	int r;

	r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "GetConnectionUnixUser", NULL, &reply, "s",
			       name);
	if (r >= 0)
		r = sd_bus_message_read(reply, "u", ret);
	sd_bus_message_unref(reply);
	return r;
}

static int method_check(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	const char *kind, *key, *name = NULL, *action, *cancel;
	uint32_t flags, uid = (uint32_t) -1;
	int r;

	r = sd_bus_message_enter_container(msg, 'r', "sa{sv}");
	if (r >= 0)
		r = sd_bus_message_read(msg, "s", &kind);
	if (r >= 0)
		r = sd_bus_message_enter_container(msg, 'a', "{sv}");
	while (r >= 0 && (r = sd_bus_message_enter_container(msg, 'e', "sv")) > 0) {
		r = sd_bus_message_read(msg, "s", &key);
		if (r >= 0 && strcmp(key, "name") == 0)
			r = sd_bus_message_read(msg, "v", "s", &name);
		else if (r >= 0)
			r = sd_bus_message_skip(msg, "v");
		if (r >= 0)
			r = sd_bus_message_exit_container(msg);
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(msg);
	if (r >= 0)
		r = sd_bus_message_exit_container(msg);
	if (r >= 0)
		r = sd_bus_message_read(msg, "s", &action);
	if (r >= 0)
		r = sd_bus_message_skip(msg, "a{ss}");
	if (r >= 0)
		r = sd_bus_message_read(msg, "us", &flags, &cancel);
	if (r < 0)
		return r;
	if (strcmp(kind, "system-bus-name") != 0 || !name)
		return sd_bus_error_set(error, "org.freedesktop.PolicyKit1.Error.Failed",
					"subject is not a system-bus-name");
	(void) subject_uid(sd_bus_message_get_bus(msg), name, &uid);
	printf("%s %u %u\n", action, flags, uid);
	fflush(stdout);

	if (strcmp(mode, "hang") == 0) {
		if (n_held < sizeof(held) / sizeof(held[0]))
			held[n_held++] = sd_bus_message_ref(msg);
		return 1;
	}
	if (strcmp(mode, "challenge") == 0)
		return sd_bus_reply_method_return(msg, "(bba{ss})", 0, 1, 0);
	return sd_bus_reply_method_return(
		msg, "(bba{ss})",
		strncmp(mode, "allow:", 6) == 0 && uid == strtoul(mode + 6, NULL, 10), 0, 0);
}

static const sd_bus_vtable vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("CheckAuthorization", "(sa{sv})sa{ss}us", "(bba{ss})", method_check, 0),
	SD_BUS_VTABLE_END,
};

int main(int argc, char **argv) {
	sd_event *event = NULL;
	sd_bus *bus = NULL;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: fake-polkit allow:UID|challenge|hang\n");
		return 2;
	}
	mode = argv[1];
	r = sd_event_default(&event);
	if (r >= 0)
		r = sd_bus_open_system(&bus);
	if (r >= 0)
		r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/PolicyKit1/Authority",
					     "org.freedesktop.PolicyKit1.Authority", vtable, NULL);
	if (r >= 0)
		r = sd_bus_request_name(bus, "org.freedesktop.PolicyKit1", 0);
	if (r >= 0)
		r = sd_bus_attach_event(bus, event, 0);
	if (r < 0) {
		fprintf(stderr, "fake-polkit: %s\n", strerror(-r));
		return 1;
	}
	fprintf(stderr, "fake-polkit: ready\n");
	return sd_event_loop(event) < 0;
}
