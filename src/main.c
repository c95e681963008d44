/* main.c - nodeaudit: the program; everything else is in the library (cli.c) */
#include "config.h"
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
