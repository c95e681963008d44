/* main.c - nodeaudit: the program; everything else is in the library (cmd/cli.c) */
#include "config.h"
#include "cmd/cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
