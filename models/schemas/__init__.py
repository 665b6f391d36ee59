"""The API's bodies that the command line prints too, and the request Structs both read."""
