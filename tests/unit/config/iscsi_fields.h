/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iscsi_fields.h: every member of struct cfg_iscsi_settings (config/model.h),
 * which are those of the fabric's struct iscsi_settings, for the tests that
 * compare the two (test_model.c: the defaults; test_apply.c: the
 * conversion). A member added to the structs is added here. */
#ifndef UT_TEST_ISCSI_FIELDS_H
#define UT_TEST_ISCSI_FIELDS_H

#define ISCSI_FIELDS(X)                                                                            \
	X(max_recv_data_segment_length)                                                            \
	X(max_burst_length)                                                                        \
	X(first_burst_length)                                                                      \
	X(initial_r2t)                                                                             \
	X(immediate_data)                                                                          \
	X(max_outstanding_r2t)                                                                     \
	X(max_connections)                                                                         \
	X(header_digest)                                                                           \
	X(data_digest)                                                                             \
	X(default_time2wait)                                                                       \
	X(default_time2retain)                                                                     \
	X(nop_in_interval_s)                                                                       \
	X(nop_in_timeout_s)                                                                        \
	X(login_timeout_s)                                                                         \
	X(max_sessions)                                                                            \
	X(max_logins_in_progress)                                                                  \
	X(max_logins_per_address)                                                                  \
	X(max_discovery_sessions)                                                                  \
	X(max_discovery_sessions_per_address)                                                      \
	X(queue_depth)                                                                             \
	X(max_buffer_memory_mib)                                                                   \
	X(max_session_data_mib)                                                                    \
	X(max_connection_data_mib)                                                                 \
	X(max_session_send_queue_mib)                                                              \
	X(max_connection_send_queue_mib)                                                           \
	X(session_reserve_kib)                                                                     \
	X(data_out_timeout_s)                                                                      \
	X(error_recovery_level)                                                                    \
	X(busy_poll_us)                                                                            \
	X(socket_uring)

#endif
