/*
 * login: `ppbench login`: check an API token against the server and save it for every later command.
 */
#ifndef PP_CLI_LOGIN_H
#define PP_CLI_LOGIN_H

#include "cli/cli.h"

extern const char login_usage[];

int login_main(struct cli *c, int argc, char **argv);

#endif
